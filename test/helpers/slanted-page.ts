// A page photographed at a strong slant, made here: page 12 of the corpus's Wonderland drawn at
// 1754 px (PDFium) and seen at a slant by ffmpeg's perspective filter — the far edge of its text a
// little over half as long as the near one. Its words are the page's text layer. The settings of
// the slanted-page reading were chosen on pages 20 and 45.
import fs from 'node:fs';
import path from 'node:path';
import { readPdfPages, renderPdfPages } from '../../server/media/pdf.ts';
import { corpus } from './corpus.ts';
import { ffmpeg } from './ffmpeg.ts';

export async function slantedPage(dir: string): Promise<{ file: string; truth: string }> {
  const book = corpus('docs/carroll-wonderland.pdf');
  const truth = (await readPdfPages(book, 12, 12))[0].lines.map((l) => l.text).join('\n');
  let png: Buffer | undefined;
  for await (const p of renderPdfPages(book, [12], 1754)) png = p.png;
  const flat = path.join(dir, 'page-12.png');
  fs.writeFileSync(flat, png!);
  const file = path.join(dir, 'page-12-slanted.png');
  ffmpeg('-i $0 -vf pad=1441:1854:100:50:gray,perspective=x0=520:y0=380:x1=960:y1=330:x2=20:y2=1830:x3=1430:y3=1800:sense=destination $1', flat, file);
  return { file, truth };
}
