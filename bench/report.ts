// Every benchmark ends the same way: a JSON result and a Markdown table in bench/results/, and the
// table printed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

export function writeResults(name: string, title: string, results: Record<string, number | string>): void {
  const date = new Date().toISOString();
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify({ date, ...results }, null, 2)}\n`);
  const rows = Object.entries(results).map(([k, v]) => `| ${k} | ${v} |`);
  fs.writeFileSync(path.join(RESULTS, `${name}.md`), [`${title} (${date.slice(0, 10)})`, '', '| figure | value |', '|---|---|', ...rows, ''].join('\n'));
  console.table(results);
}
