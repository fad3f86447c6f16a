// `npm run bench -- <name> [args]` runs one benchmark (bench/<name>.ts) with its arguments;
// `npm run bench` runs the suite behind docs/performance.md in order, then writes the summary.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.dirname(fileURLToPath(import.meta.url));
// ONNX Runtime's telemetry off in the benchmarks' own processes too (the app's turn it off themselves).
process.env.ORT_DISABLE_TELEMETRY = '1';
const TSX = path.join(DIR, '..', 'node_modules', '.bin', 'tsx');
/** The suite, in the order it runs (the summary last: it reads the others' results). */
const SUITE: string[][] = [
  ['start'],
  ['extract'],
  ['stages'],
  ['model-paths'],
  ['people'],
  ['index'],
  ['search'],
  ['search-service', '--assets', '100000', '--vectors', '1000000'],
  ['libraries'],
  ['recoll'],
  ['summary'],
];
/** Modules of bench/ that are helpers, not benchmarks. */
const HELPERS = new Set(['run', 'report', 'sets', 'serve', 'texts', 'base-checkout']);
const names = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .filter((n) => !HELPERS.has(n))
  .sort();

function run(name: string, args: string[]): number {
  if (!names.includes(name)) {
    console.error(`no benchmark "${name}"; there are: ${names.join(', ')}`);
    return 2;
  }
  return spawnSync(TSX, [path.join(DIR, `${name}.ts`), ...args], { stdio: 'inherit' }).status ?? 1;
}

const [name, ...args] = process.argv.slice(2);
if (name) process.exit(run(name, args));
for (const [step, ...stepArgs] of SUITE) {
  const code = run(step, stepArgs);
  if (code !== 0) process.exit(code);
}
