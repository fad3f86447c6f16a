import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractTextDocument } from './office.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-office-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const chapter = (title: string, body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`;

/** An e-book whose package document is `opf` at `opfPath`, with `files` besides. */
async function book(name: string, opfPath: string, opf: string, files: Record<string, string | Buffer>): Promise<string> {
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' });
  zip.file(
    'META-INF/container.xml',
    `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="${opfPath}" media-type="application/oebps-package+xml"/></rootfiles></container>`,
  );
  zip.file(opfPath, opf);
  for (const [f, content] of Object.entries(files)) zip.file(f, content);
  const file = path.join(dir, name);
  fs.writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return file;
}

const texts = (pages: Array<{ text: string }>) => pages.map((p) => p.text);

describe('e-books (EPUB)', () => {
  it('reads the chapters in the order of the spine, each starting a page, wherever the package document and its chapters are', async () => {
    const file = await book(
      'order.epub',
      'OPS/content/package.opf',
      `<?xml version="1.0"?>
      <opf:package xmlns:opf="http://www.idpf.org/2007/opf" version="3.0">
        <opf:manifest>
          <opf:item id="c2" href="../Text/chapter%20two.xhtml" media-type="application/xhtml+xml"/>
          <opf:item id="c1" href="one.xhtml#start" media-type="application/xhtml+xml"/>
          <opf:item id="cover" href="cover.png" media-type="image/png"/>
          <opf:item id="css" href="style.css" media-type="text/css"/>
        </opf:manifest>
        <opf:spine><opf:itemref idref="cover"/><opf:itemref idref="c1"/><opf:itemref idref="gone"/><opf:itemref idref="c2"/></opf:spine>
      </opf:package>`,
      {
        'OPS/content/one.xhtml': chapter('The first chapter', 'A rabbit ran past the riverbank.'),
        'OPS/Text/chapter two.xhtml': chapter('The second chapter', 'The tea party went on without end.'),
        'OPS/content/cover.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
        'OPS/content/style.css': 'p { margin: 0 }',
      },
    );
    const { pages } = await extractTextDocument(file, '.epub');
    expect(texts(pages)).toEqual(['The first chapter\n\nA rabbit ran past the riverbank.', 'The second chapter\n\nThe tea party went on without end.']);
  });

  it('is corrupt without its container or package document, and too large when a chapter inflates past what it declares', async () => {
    const noContainer = path.join(dir, 'bare.epub');
    const zip = new JSZip();
    zip.file('mimetype', 'application/epub+zip');
    fs.writeFileSync(noContainer, await zip.generateAsync({ type: 'nodebuffer' }));
    await expect(extractTextDocument(noContainer, '.epub')).rejects.toThrow(/^corrupt: META-INF\/container.xml is missing/);

    const noPackage = await book('nopackage.epub', 'OPS/package.opf', '<package/>', {});
    fs.writeFileSync(noPackage, await (await JSZip.loadAsync(fs.readFileSync(noPackage))).remove('OPS/package.opf').generateAsync({ type: 'nodebuffer' }));
    await expect(extractTextDocument(noPackage, '.epub')).rejects.toThrow(/^corrupt: OPS\/package.opf is missing/);
  });
});

describe('OpenDocument text', () => {
  it('keeps numbers as written and decodes character references', async () => {
    const zip = new JSZip();
    zip.file('mimetype', 'application/vnd.oasis.opendocument.text', { compression: 'STORE' });
    zip.file(
      'content.xml',
      '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>' +
        '<text:p>007</text:p><text:p>9.0</text:p><text:p>&#x4E3B;&#20013; &amp; more</text:p></office:text></office:body></office:document-content>',
    );
    const file = path.join(dir, 'numbers.odt');
    fs.writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
    expect(texts((await extractTextDocument(file, '.odt')).pages)).toEqual(['007\n\n9.0\n\n主中 & more']);
  });
});
