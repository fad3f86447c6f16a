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

  it('reads a slide show page by page, a paragraph with what it holds, and honours no hostile count of spaces', async () => {
    const zip = new JSZip();
    zip.file('mimetype', 'application/vnd.oasis.opendocument.presentation', { compression: 'STORE' });
    zip.file(
      'content.xml',
      '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0">' +
        '<office:automatic-styles><text:p>not on a page</text:p></office:automatic-styles><office:body><office:presentation>' +
        '<draw:page><draw:frame><draw:text-box><text:p>First<text:s text:c="3"/>slide<text:tab/>end</text:p></draw:text-box></draw:frame></draw:page>' +
        '<draw:page><draw:frame><draw:text-box><text:p>Outer <text:span>kept<text:note><text:p>note inside</text:p></text:note></text:span></text:p><text:p>Wide<text:s text:c="1000000000"/>gap</text:p></draw:text-box></draw:frame></draw:page>' +
        '</office:presentation></office:body></office:document-content>',
    );
    const file = path.join(dir, 'slides.odp');
    fs.writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
    const { pages } = await extractTextDocument(file, '.odp');
    expect(pages.map((p) => p.passages.map((x) => x.text))).toEqual([['First slide end'], ['Outer keptnote inside', 'Wide gap']]);
  });
});

describe('Word documents', () => {
  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"';
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
  const para = (text: string, style?: string) => `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}${run(text)}</w:p>`;

  it('reads paragraphs, headings by their style, table rows as one passage, a text box once, and the notes after the body', async () => {
    const body = [
      para('Field notes', 'H1'),
      `<w:p>${run('Seen at ')}<w:del w:id="1"><w:r><w:delText>deleted words</w:delText></w:r></w:del><w:ins w:id="2">${run('dawn')}</w:ins><w:r><w:tab/></w:r>${run('by the river.')}<w:r><w:footnoteReference w:id="1"/></w:r></w:p>`,
      `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${run('7')}<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
      `<w:tbl><w:tr><w:tc>${para('Heron')}</w:tc><w:tc>${para('12')}${para('birds')}</w:tc></w:tr><w:tr><w:tc>${para('')}</w:tc><w:tc>${para('Egret')}</w:tc></w:tr></w:tbl>`,
      `<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent>${para('In the box')}</w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent>${para('In the box')}</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`,
    ].join('');
    const zip = new JSZip();
    zip.file(
      '_rels/.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    );
    zip.file(
      'word/_rels/document.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s" Type="${REL}/styles" Target="styles.xml"/><Relationship Id="f" Type="${REL}/footnotes" Target="footnotes.xml"/><Relationship Id="h" Type="${REL}/hyperlink" Target="https://example.org" TargetMode="External"/></Relationships>`,
    );
    zip.file(
      'word/styles.xml',
      `<w:styles ${W}><w:style w:type="paragraph" w:styleId="H1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/></w:style></w:styles>`,
    );
    zip.file('word/document.xml', `<w:document ${W}><w:body>${body}</w:body></w:document>`);
    zip.file(
      'word/footnotes.xml',
      `<w:footnotes ${W}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1">${para('Counted from the bridge.')}</w:footnote></w:footnotes>`,
    );
    const file = path.join(dir, 'notes.docx');
    fs.writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
    const { pages } = await extractTextDocument(file, '.docx');
    expect(pages.flatMap((p) => p.passages.map((x) => x.text))).toEqual([
      'Field notes',
      'Seen at dawn by the river.',
      '7',
      'Heron | 12 birds',
      'Egret',
      'In the box',
      'Counted from the bridge.',
    ]);
  });
});

describe('web pages and Markdown', () => {
  const passagesOf = async (file: string, ext: string) => (await extractTextDocument(file, ext)).pages.flatMap((p) => p.passages.map((x) => x.text));

  it("gives each entry of a nested table of contents, list or quotation a passage of its own, an entry's text apart from the list of its sections", async () => {
    const file = path.join(dir, 'toc.html');
    fs.writeFileSync(
      file,
      `<html><body><h1>A Brief History</h1>
      <div class="toc"><dl>
        <dt><a href="#a">1. Introduction</a></dt>
        <dd><dl><dt>1.1. In the Beginning</dt><dt>1.2. Pronouncing the Name</dt></dl></dd>
        <dt>2. Leadership</dt>
      </dl></div>
      <ol><li>First point<ol><li>a detail</li><li>another detail</li></ol></li><li><p>A loose item.</p><p>Its second paragraph.</p></li></ol>
      <blockquote><p>Quoted once.</p><p>Quoted twice.</p></blockquote>
      <p>A plain paragraph with <em>emphasis</em> and a <a href="#">link</a>.</p>
      </body></html>`,
    );
    expect(await passagesOf(file, '.html')).toEqual([
      'A Brief History',
      '1. Introduction',
      '1.1. In the Beginning',
      '1.2. Pronouncing the Name',
      '2. Leadership',
      'First point',
      'a detail',
      'another detail',
      'A loose item.',
      'Its second paragraph.',
      'Quoted once.',
      'Quoted twice.',
      'A plain paragraph with emphasis and a link.',
    ]);
  });

  it('keeps a nested Markdown list apart, item by item', async () => {
    const file = path.join(dir, 'notes.md');
    fs.writeFileSync(file, '# Trip\n\n- Day one\n  - the lake\n  - the hut\n- Day two\n');
    expect(await passagesOf(file, '.md')).toEqual(['Trip', 'Day one', 'the lake', 'the hut', 'Day two']);
  });
});
