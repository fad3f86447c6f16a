// Zip bombs for the tests of the zip reader: a minimal .docx with one entry of `bytes` spaces
// (deflated ~1000:1), optionally lying about that entry's size in both of its headers.
import fs from 'node:fs';
import zlib from 'node:zlib';
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

/**
 * A zip named like a .docx holding one entry of `bytes` spaces that declares `declare` bytes, written
 * to `file` without holding its content (deflated as it is made: a few hundred MiB cost a few MiB).
 */
export async function docxBombFile(file: string, entry: string, bytes: number, declare: number): Promise<void> {
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (c: Buffer) => parts.push(c));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const chunk = Buffer.alloc(1 << 20, 0x20);
  let crc = 0;
  for (let left = bytes; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    crc = zlib.crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  const body = Buffer.concat(parts);
  const name = Buffer.from(entry);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8); // deflated
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(body.length, 18);
  local.writeUInt32LE(declare, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(body.length, 20);
  central.writeUInt32LE(declare, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42); // its local header's offset
  const directoryAt = local.length + name.length + body.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(directoryAt, 16);
  fs.writeFileSync(file, Buffer.concat([local, name, body, central, name, end]));
}
