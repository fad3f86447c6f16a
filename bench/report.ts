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

/** Times `fn` `runs` times after one untimed call (models load once per process): the median and range, ms. */
export async function timedRuns(runs: number, fn: () => Promise<unknown>): Promise<{ median: number; range: string }> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < Math.max(3, runs); i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return { median: r1(ms[Math.floor(ms.length / 2)]), range: `${r1(ms[0])}–${r1(ms[ms.length - 1])}` };
}

/** Puts a timed figure into results as `key` (the median) and `key_range`. */
export function record(results: Record<string, number | string>, key: string, t: { median: number; range: string }, scale = 1): void {
  const r1 = (x: number) => Math.round(x * 10) / 10;
  results[key] = r1(t.median * scale);
  results[`${key}_range`] =
    scale === 1
      ? t.range
      : t.range
          .split('–')
          .map((x) => r1(Number(x) * scale))
          .join('–');
}
