// What the benchmarks share: numeric arguments, and the ending — a JSON result and a Markdown
// table in bench/results/, and the table printed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A numeric `--name value` argument of the command line. */
export function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

export function writeResults(name: string, title: string, results: Record<string, number | string>): void {
  const date = new Date().toISOString();
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify({ date, ...results }, null, 2)}\n`);
  const rows = Object.entries(results).map(([k, v]) => `| ${k} | ${v} |`);
  fs.writeFileSync(path.join(RESULTS, `${name}.md`), [`${title} (${date.slice(0, 10)})`, '', '| figure | value |', '|---|---|', ...rows, ''].join('\n'));
  console.table(results);
}
