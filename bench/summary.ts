// The figures of the performance targets in one place: bench/results/summary.json (a list of
// {name, value, unit, target, met, runs, machine, date}) and summary.md, read from the results the
// benchmarks wrote. A figure whose benchmark has not run (or ran at another scale) is listed with
// value null and met false. `npm run bench` ends with it; `npm run bench -- summary` alone re-reads.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

interface Figure {
  name: string;
  value: number | null;
  unit: string;
  target: string;
  met: boolean;
  /** How many runs the value is the median of (1: a single run). */
  runs: number;
  machine: string | null;
  date: string | null;
}

type Result = Record<string, unknown> & { date?: string; machine?: string };
const read = (file: string): Result | null => {
  try {
    return JSON.parse(fs.readFileSync(path.join(RESULTS, `${file}.json`), 'utf8')) as Result;
  } catch {
    return null;
  }
};

const figures: Figure[] = [];
function figure(name: string, file: string, field: string, unit: string, target: { min?: number; max?: number }, runs: number | string = 1): void {
  const r = read(file);
  const v = r?.[field];
  const value = typeof v === 'number' ? v : null;
  const met = value !== null && (target.min === undefined || value >= target.min) && (target.max === undefined || value <= target.max);
  figures.push({
    name,
    value,
    unit,
    target: target.min !== undefined ? `≥ ${target.min}` : `≤ ${target.max}`,
    met,
    runs: typeof runs === 'number' ? runs : typeof r?.[runs] === 'number' ? (r[runs] as number) : 1,
    machine: r?.machine ?? null,
    date: r?.date ?? null,
  });
}

figure('photos, every bundled stage', 'index', 'photos_per_s', 'photos/s', { min: 2 }, 'rounds');
figure('video, every bundled stage', 'index', 'video_x_realtime', '× real time', { min: 8 }, 'rounds');
figure('text PDF, end to end', 'index', 'text_pdf_pages_per_s', 'pages/s', { min: 50 }, 'rounds');
figure('peak memory while indexing (server + indexer processes), PSS summed: shared pages once', 'index', 'peak_pss_mib', 'MiB', { max: 1536 }, 'rounds');
figure('peak memory while indexing (server + indexer processes), RSS summed: shared pages in each', 'index', 'peak_rss_mib', 'MiB', { max: 1536 }, 'rounds');
figure('search p50, 100k assets / 1M vectors', 'search-service-100000', 'hybrid_p50_ms', 'ms', { max: 20 }, 3);
figure('search p99, 100k assets / 1M vectors', 'search-service-100000', 'hybrid_p99_ms', 'ms', { max: 80 }, 3);
figure('dense recall@10 at 1M vectors (as the service asks)', 'search-service-100000', 'dense_recall_at_10', '', { min: 0.97 });
figure('server memory while serving 1M vectors', 'search-service-100000', 'server_rss_mib_serving', 'MiB', { max: 1536 });
figure('cold start to the first hybrid answer at 1M vectors', 'search-service-100000', 'cold_start_to_first_hybrid_answer_ms_median', 'ms', { max: 1500 }, 3);
figure('vector index of 1M built by the service', 'search-service-100000', 'index_build_s_first_query', 's', { max: 600 });
figure('first authenticated answer after launch (restart)', 'start', 'restart_median_ms', 'ms', { max: 1500 }, 3);
figure('text PDFs indexed, time against Recoll', 'recoll', 'time_ratio', '×', { max: 3 }, 'runs');

fs.writeFileSync(path.join(RESULTS, 'summary.json'), `${JSON.stringify(figures, null, 2)}\n`);
const cell = (f: Figure) => (f.value === null ? 'not measured' : `${f.value} ${f.unit}`.trim());
fs.writeFileSync(
  path.join(RESULTS, 'summary.md'),
  [
    '| figure | value | target | met | runs | machine | date |',
    '|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) => `| ${f.name} | ${cell(f)} | ${f.target} ${f.unit} | ${f.met ? 'yes' : 'no'} | ${f.runs} | ${f.machine ?? ''} | ${f.date?.slice(0, 10) ?? ''} |`,
    ),
    '',
  ].join('\n'),
);
console.log(fs.readFileSync(path.join(RESULTS, 'summary.md'), 'utf8'));
