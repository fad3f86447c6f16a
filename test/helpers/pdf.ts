// Small PDFs written byte by byte for tests: pages of text in a standard font, and pages that
// draw a JPEG over most of the page, either as an image object or inline in the page's content.

/** `rotate`: the page's /Rotate (shown turned clockwise by that many degrees). */
export type PdfPageSpec = { text: string; rotate?: 90 | 180 | 270 } | { jpeg: Buffer; width: number; height: number; inline?: boolean };

const PAGE_W = 612;
const PAGE_H = 792;

/** A PDF with one page per spec (uncompressed; a correct cross-reference table). */
export function makePdf(pages: PdfPageSpec[]): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string): number => objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
  const stream = (dict: string, data: Buffer) =>
    Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, written once the pages' numbers are known
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids: number[] = [];
  for (const spec of pages) {
    let content: Buffer;
    let resources = `/Font << /F1 ${font} 0 R >>`;
    if ('text' in spec) {
      const lines = spec.text.split('\n').map((l, i) => `BT /F1 12 Tf 72 ${720 - i * 16} Td (${l.replace(/[()\\]/g, '\\$&')}) Tj ET`);
      content = Buffer.from(lines.join('\n'), 'latin1');
    } else {
      // Drawn over 90 % of the page's width, from its foot.
      const w = PAGE_W * 0.9;
      const h = (w * spec.height) / spec.width;
      const place = `q ${w.toFixed(2)} 0 0 ${h.toFixed(2)} 30 40 cm\n`;
      if (spec.inline) {
        const head = `${place}BI /W ${spec.width} /H ${spec.height} /CS /RGB /BPC 8 /F /DCT ID\n`;
        content = Buffer.concat([Buffer.from(head, 'latin1'), spec.jpeg, Buffer.from('\nEI Q', 'latin1')]);
      } else {
        const image = add(
          stream(
            `/Type /XObject /Subtype /Image /Width ${spec.width} /Height ${spec.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`,
            spec.jpeg,
          ),
        );
        resources += ` /XObject << /Im0 ${image} 0 R >>`;
        content = Buffer.from(`${place}/Im0 Do Q`, 'latin1');
      }
    }
    const contents = add(stream('', content));
    const rotate = 'rotate' in spec && spec.rotate ? ` /Rotate ${spec.rotate}` : '';
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_W} ${PAGE_H}]${rotate} /Resources << ${resources} >> /Contents ${contents} 0 R >>`));
  }
  objects[1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`, 'latin1');
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    offsets.push(offset);
    parts.push(obj);
    offset += obj.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
