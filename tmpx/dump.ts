import fs from 'node:fs';
import path from 'node:path';
import { extractTextDocument } from '../server/media/office.ts';
const [outDir, ...files] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
for (const f of files) {
  const t0 = performance.now();
  let out: unknown;
  try {
    out = await extractTextDocument(f, path.extname(f).toLowerCase());
  } catch (err) {
    out = { error: String((err as Error).message), code: (err as { code?: string }).code };
  }
  fs.writeFileSync(path.join(outDir, path.basename(f) + '.json'), JSON.stringify(out, null, 1));
  console.log(path.basename(f), (performance.now() - t0).toFixed(0), 'ms');
}
