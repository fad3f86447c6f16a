// Zip bombs for the tests of the zip reader: a minimal .docx with one entry of `bytes` spaces
// (deflated ~1000:1), optionally lying about that entry's size in both of its headers.
import JSZip from 'jszip';

export async function docxBomb(entry: string, bytes: number, opts: { declare?: number } = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  zip.file('word/document.xml', '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body/></w:document>');
  zip.file(entry, Buffer.alloc(bytes, 0x20));
  const buf = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
  if (opts.declare !== undefined) {
    const name = Buffer.from(entry);
    for (let i = 0; i < buf.length - 46; i++) {
      const sig = buf.readUInt32LE(i);
      if (sig === 0x04034b50 && buf.subarray(i + 30, i + 30 + name.length).equals(name)) buf.writeUInt32LE(opts.declare, i + 22);
      if (sig === 0x02014b50 && buf.subarray(i + 46, i + 46 + name.length).equals(name)) buf.writeUInt32LE(opts.declare, i + 24);
    }
  }
  return buf;
}
