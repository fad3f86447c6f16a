// `npm run fuzz:api`: schemathesis (from PyPI, into a cache folder) against /api/v1/openapi.json of a
// running service with a seeded workspace, once with a read key and once with a write key: every
// operation and method, the examples, coverage, fuzzing and stateful phases (links the document
// declares). Checks: no 5xx, responses that match the declared schemas, status codes, content types
// and headers, invalid input refused, authentication enforced, and (scripts/fuzz/hooks.py) nothing
// written by a refused request. Exits non-zero on any failure.
//
// FUZZ_MAX_EXAMPLES (default 20) bounds the cases per operation and phase; FUZZ_SEED fixes the run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedVenv } from './venv.ts';

const ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const CORPUS = path.resolve(ROOT, '../shared/corpus');
const CLI = path.join(ROOT, 'bin/media-index.js');
const SCHEMATHESIS = 'schemathesis==4.32.5';
const VENV = process.env.MEDIA_INDEX_FUZZ_VENV || path.join(os.homedir(), '.cache', 'media-index', 'fuzz-venv');
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES || '20';
const SEED = process.env.FUZZ_SEED || '20261123';

function log(msg: string): void {
  process.stderr.write(`fuzz:api: ${msg}\n`);
}

/** The `st` command of a virtual environment holding the pinned schemathesis. */
const schemathesis = () => path.join(pinnedVenv(VENV, [SCHEMATHESIS], log), 'bin', 'st');

function cli(args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
}

/** `index`, whose exit code is 2 when a stage failed: what a seed with a failing file expects. */
function indexExpectingFailure(args: string[]): void {
  const r = spawnSync(process.execPath, [CLI, 'index', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 2) throw new Error(`media-index index ${args.join(' ')} exited ${r.status}, not 2: ${r.stdout}`);
}

const keyOf = (out: string) => out.trim().split('\n').at(-1)!;

async function main(): Promise<number> {
  const st = schemathesis();
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-fuzz-'));
  const roots = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-fuzz-roots-'));
  const reports = path.join(ROOT, 'fuzz-report');
  fs.rmSync(reports, { recursive: true, force: true });
  try {
    log(`seeding a workspace in ${data}`);
    // A document, an office file, a photo, a short video, and four faces each of two men (People).
    const johns = ['John_Salley', 'John_Savage'].flatMap((who) =>
      fs
        .readdirSync(path.join(CORPUS, 'faces/dlib-johns', who))
        .sort()
        .slice(0, 4)
        .map((f) => `faces/dlib-johns/${who}/${f}`),
    );
    const seed = ['docs/a-text.pdf', 'office/a-text.docx', 'scenes/skimage/chelsea.png', 'video/format-fixtures/mp4.mp4', ...johns];
    cli(['index', ...seed.map((f) => path.join(CORPUS, f)), '--data', data, '--workspace', 'fuzz', '--workers', '1']);
    // A password-protected PDF: accepted, and its extraction fails (a stage failed: exit code 2).
    indexExpectingFailure([path.join(CORPUS, 'docs/a-text-pass-peanuts.pdf'), '--data', data, '--workspace', 'other', '--workers', '1']);
    // A library (a folder followed in place) in the workspace, for the /libraries routes.
    const folder = path.join(roots, 'library');
    fs.mkdirSync(folder);
    fs.copyFileSync(path.join(CORPUS, 'docs/a-text-pass-peanuts.pdf'), path.join(folder, 'peanuts.pdf'));
    cli(['libraries', 'add', folder, '--data', data, '--workspace', 'fuzz', '--wait'], { MEDIA_INDEX_LIBRARY_ROOTS: roots, MEDIA_INDEX_WORKERS: '1' });
    const keys = {
      read: keyOf(cli(['keys', 'create', '--data', data, '--workspace', 'fuzz', '--scopes', 'read', '--access', 'other'])),
      write: keyOf(cli(['keys', 'create', '--data', data, '--workspace', 'fuzz', '--scopes', 'read,write', '--access', 'other'])),
    };

    // Indexing paused (--workers 0): what the fuzzer uploads is queued, not worked on behind its back.
    const env = {
      ...process.env,
      MEDIA_INDEX_RATE_LIMIT: '1000000',
      MEDIA_INDEX_LIBRARY_ROOTS: roots,
      MEDIA_INDEX_MODEL_MIRROR: 'http://127.0.0.1:9',
    };
    const serve = spawn(process.execPath, [CLI, 'serve', '--data', data, '--port', '0', '--workers', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let serveErr = '';
    serve.stderr.on('data', (c) => (serveErr += c));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      serve.stdout.on('data', (c) => {
        out += c;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]);
      });
      serve.on('exit', (code) => reject(new Error(`serve exited ${code}: ${serveErr}`)));
    });
    let failed = 0;
    fs.mkdirSync(reports, { recursive: true });
    try {
      for (const [name, key] of Object.entries(keys)) {
        log(`schemathesis with the ${name} key, ${MAX_EXAMPLES} examples per operation, seed ${SEED}`);
        const args = [
          'run',
          `${url}/api/v1/openapi.json`,
          '--header',
          `X-API-Key: ${key}`,
          '--checks',
          'all',
          '--exclude-checks',
          'positive_data_acceptance',
          '--max-examples',
          MAX_EXAMPLES,
          '--seed',
          SEED,
          '--workers',
          '1',
          '--generation-allow-x00',
          'false',
          '--request-timeout',
          '30',
          '--suppress-health-check',
          'all',
          '--no-color',
          '--report',
          'ndjson',
          '--report-dir',
          path.join(reports, name),
        ];
        // Its console output (progress redrawn in place, a closing line in pytest's style) goes to a
        // file; the log gets its count of cases, and the whole output when a run fails.
        const output = path.join(reports, `${name}.txt`);
        const sink = fs.openSync(output, 'w');
        const code = await new Promise<number>((resolve) => {
          const p = spawn(st, args, {
            cwd: reports, // its example database (.schemathesis/) goes there too
            stdio: ['ignore', sink, sink],
            env: { ...process.env, MI_FUZZ_DATA: data, SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: path.join(ROOT, 'scripts/fuzz') },
          });
          p.on('exit', (c) => resolve(c ?? 1));
        });
        fs.closeSync(sink);
        const text = fs.readFileSync(output, 'utf8');
        const cases = /^\s*(\d+ generated.*)$/m.exec(text)?.[1] ?? 'no count printed';
        log(`${name} key: ${code === 0 ? 'no failures' : `exit ${code}`} (${cases}); output in ${output}`);
        if (code !== 0) {
          process.stderr.write(text);
          failed++;
        }
      }
      const health = await fetch(`${url}/api/v1/health`);
      if (health.status !== 200) {
        log(`the service no longer answers /health (${health.status})`);
        failed++;
      }
    } finally {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.on('exit', r));
    }
    log(failed ? `${failed} run(s) failed; reports in ${reports}` : `no failures; reports in ${reports}`);
    return failed ? 1 : 0;
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
    fs.rmSync(roots, { recursive: true, force: true });
  }
}

process.exitCode = await main();
