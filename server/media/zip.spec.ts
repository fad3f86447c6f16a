import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMetadata } from './metadata.ts';
import { extractTextDocument } from './office.ts';
import { Zip } from './zip.ts';
import { docxBomb } from '../../test/helpers/zip-bomb.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-zip-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MiB = 1024 ** 2;

async function docx(name: string, entry: string, bytes: number, declare?: number): Promise<string> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, await docxBomb(entry, bytes, { declare }));
  return file;
}

describe('Zip, the one reader of zip containers', () => {
  it('refuses an archive whose entries declare more than the limit, before inflating anything', async () => {
    const file = await docx('declared.docx', 'word/media/big.bin', 4 * MiB);
    await expect(Zip.open(file, 1 * MiB)).rejects.toThrow(/^too_large: the archive inflates to \d+ bytes/);
    await expect((await Zip.open(file, 8 * MiB)).text('word/document.xml')).resolves.toContain('w:body');
  });

  it('stops an entry that inflates past the size it declares', async () => {
    const file = await docx('liar.docx', 'docProps/core.xml', 8 * MiB, 100);
    const zip = await Zip.open(file, 32 * MiB); // the declared sizes pass
    await expect(zip.text('docProps/core.xml')).rejects.toThrow(/^too_large: docProps\/core.xml inflates past 100 bytes/);
  });

  it('is corrupt for a file that is no zip, and for a missing entry', async () => {
    const file = path.join(dir, 'not.docx');
    fs.writeFileSync(file, 'plain text, not a zip');
    await expect(Zip.open(file)).rejects.toThrow(/^corrupt: not a readable zip container/);
    const ok = await docx('ok.docx', 'docProps/app.xml', 10);
    await expect((await Zip.open(ok)).text('content.xml')).rejects.toThrow(/^corrupt: content.xml is missing/);
  });

  it('a zip bomb disguised as .docx fails extraction and leaves its properties unread, with reasons', async () => {
    // The body is the bomb: it is inflated no further than the size it declares.
    const body = await docx('body-bomb.docx', 'word/document.xml', 8 * MiB, 100);
    await expect(extractTextDocument(body, '.docx')).rejects.toThrow(/^too_large: word\/document.xml inflates past 100 bytes/);
    // The properties are the bomb: the body reads, and the properties stop at 1 MB.
    const file = await docx('bomb.docx', 'docProps/core.xml', 8 * MiB, 100);
    expect((await extractTextDocument(file, '.docx')).pages).toHaveLength(1);
    const read = await readMetadata(file, '.docx', 'document', { linked: false });
    expect(read.metadata.title).toBeNull();
    expect(read.warnings).toEqual(['document properties larger than 1 MB; not read']);
  });
});
