// XMP sidecars as other tools write them: UTF-8 or UTF-16 (little- or big-endian), with or without a
// byte-order mark and the <?xpacket?> wrapper, named IMG_1.xmp, IMG_1.JPG.xmp or img_1.jpg.XMP —
// each read beside a real photo (indexed in place), its capture time and title winning over none.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readMetadata, sidecarText, sidecarsOf } from './metadata.ts';

const PHOTO = fileURLToPath(new URL('../../../shared/corpus/scenes/skimage/coffee.png', import.meta.url));
const BODY = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
 photoshop:DateCreated="2019-12-24T15:15:44-04:00"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Christmas Eve, Café</rdf:li></rdf:Alt></dc:title>
</rdf:Description></rdf:RDF></x:xmpmeta>`;
const WRAPPED = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n${BODY}\n<?xpacket end="w"?>`;

const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
const ENCODINGS: Array<[string, Buffer]> = [
  ['UTF-8, wrapped', Buffer.from(WRAPPED, 'utf8')],
  ['UTF-8, no wrapper', Buffer.from(BODY, 'utf8')],
  ['UTF-8 with a mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BODY, 'utf8')])],
  ['UTF-16 LE with a mark', Buffer.from(`\uFEFF${WRAPPED}`, 'utf16le')],
  ['UTF-16 LE without one', Buffer.from(BODY, 'utf16le')],
  ['UTF-16 BE with a mark', utf16be(`\uFEFF${WRAPPED}`)],
  ['UTF-16 BE without one', utf16be(BODY)],
];
const NAMES = ['IMG_1.xmp', 'IMG_1.PNG.xmp', 'img_1.png.XMP'];

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-sidecar-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('XMP sidecars of every encoding and name', () => {
  it('decodes each encoding to the same text', () => {
    for (const [what, bytes] of ENCODINGS) expect(sidecarText(bytes).replace(/^\uFEFF/, ''), what).toMatch(/^(<\?xpacket|<x:xmpmeta)[\s\S]*Café/);
  });

  ENCODINGS.forEach(([what, bytes], i) => {
    const name = NAMES[i % NAMES.length];
    it(`reads a sidecar in ${what}, named ${name}`, async () => {
      const folder = fs.mkdtempSync(path.join(dir, 'f-'));
      const photo = path.join(folder, 'IMG_1.png');
      fs.copyFileSync(PHOTO, photo);
      fs.writeFileSync(path.join(folder, name), bytes);
      const read = await readMetadata(photo, '.png', 'image', { linked: true });
      expect(read.sidecars).toEqual([name]);
      expect(read.warnings).toEqual([]);
      expect(read.metadata).toMatchObject({ title: 'Christmas Eve, Café', taken_at: '2019-12-24T15:15:44-04:00' });
    });
  });
});

describe('the folder listing the sidecars are looked up in', () => {
  /** The folder's modification time set a minute back: settled, as a folder of photos is. */
  const settle = (folder: string) => {
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(folder, past, past);
  };

  it('lists a settled folder once for all its photos, and again when an entry is added or removed', () => {
    const folder = fs.mkdtempSync(path.join(dir, 'many-'));
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(folder, `IMG_${i}.jpg`), '');
    fs.writeFileSync(path.join(folder, 'img_7.JPG.xmp'), BODY);
    settle(folder);
    const listed = vi.spyOn(fs, 'readdirSync');
    try {
      const found = Array.from({ length: 50 }, (_, i) => sidecarsOf(path.join(folder, `IMG_${i}.jpg`)));
      expect(found.filter((f) => f.length > 0)).toEqual([[path.join(folder, 'img_7.JPG.xmp')]]);
      expect(listed).toHaveBeenCalledTimes(1);
      // A sidecar written: the folder's time changes, and it is listed again.
      fs.writeFileSync(path.join(folder, 'IMG_3.xmp'), BODY);
      expect(sidecarsOf(path.join(folder, 'IMG_3.jpg'))).toEqual([path.join(folder, 'IMG_3.xmp')]);
      settle(folder);
      expect(sidecarsOf(path.join(folder, 'IMG_3.jpg'))).toEqual([path.join(folder, 'IMG_3.xmp')]);
      // And one removed.
      fs.rmSync(path.join(folder, 'IMG_3.xmp'));
      expect(sidecarsOf(path.join(folder, 'IMG_3.jpg'))).toEqual([]);
      expect(listed).toHaveBeenCalledTimes(4);
    } finally {
      listed.mockRestore();
    }
  });

  it("finds both names of a photo's sidecars, in any case, the one named after the whole file last", () => {
    const folder = fs.mkdtempSync(path.join(dir, 'both-'));
    for (const n of ['IMG_1.JPG', 'IMG_1.JPG.XMP', 'img_1.xmp']) fs.writeFileSync(path.join(folder, n), '');
    settle(folder);
    expect(sidecarsOf(path.join(folder, 'IMG_1.JPG'))).toEqual([path.join(folder, 'img_1.xmp'), path.join(folder, 'IMG_1.JPG.XMP')]);
  });
});
