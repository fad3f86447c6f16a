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

/** The median of the values and their range, each rounded to `digits` decimals. */
export function spread(values: number[], digits = 1): { median: number; range: string } {
  const xs = [...values].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10 ** digits) / 10 ** digits;
  return { median: r(xs[Math.floor(xs.length / 2)]), range: `${r(xs[0])}–${r(xs[xs.length - 1])}` };
}

/** The p-th percentile (0–1) of the values, by nearest rank: the value at ⌊(n − 1)·p⌋ once sorted. */
/** The middle value (the upper one of an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function percentile(values: number[], p: number): number {
  const xs = [...values].sort((a, b) => a - b);
  return xs[Math.floor((xs.length - 1) * p)];
}

/** Times `fn` at least three times after one untimed call (models load once per process), ms. */
export async function timedRuns(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < Math.max(3, runs); i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** Puts timed runs into results as `key` (the median, times `scale`) and `key_range`. */
export function record(results: Record<string, number | string>, key: string, ms: number[], scale = 1): void {
  const t = spread(ms.map((x) => x * scale));
  results[key] = t.median;
  results[`${key}_range`] = t.range;
}
