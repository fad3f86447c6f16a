// Clients generated from the OpenAPI document a running `media-index serve` answers with, as a script
// writer makes them (openapi-typescript + openapi-fetch; openapi-python-client), each running the same
// script (docs/scripts/tour.ts, tour.py) against that service: upload, poll, page, regions, search,
// recall, People, paging, and 429 / 409 busy waited out (the service runs with a low rate limit).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI, startServe } from '../test/helpers/serve.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = path.resolve(ROOT, '../shared/corpus');
const BIN = path.join(ROOT, 'node_modules/.bin');
const QUERY = 'LibreOffice Writer';
const JOHN = path.join(CORPUS, 'faces/dlib-johns/John_Salley');
const FILES = [
  path.join(CORPUS, 'docs/a-text.pdf'),
  ...fs
    .readdirSync(JOHN)
    .sort()
    .slice(0, 3)
    .map((f) => path.join(JOHN, f)),
];

let work: string;
let doc: string;

/**
 * A `media-index serve` of its own data folder, with a key for each language's workspace. `limited`
 * has a rate low enough that every run meets 429 whatever the machine's speed (4 requests a 2-second
 * window per key: the four uploads and the first poll, or the six calls of steps 3 to 5 made back to back,
 * cannot all fit); `plain` the
 * default, so that the script's second re-group reliably meets 409 busy (not a 429 wait first).
 */
function service(rateLimit?: number) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-clients-data-'));
  const key = (workspace: string) =>
    execFileSync(process.execPath, [CLI, 'keys', 'create', '--data', data, '--workspace', workspace, '--scopes', 'read,write'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1)!;
  const keys = { ts: key('typescript'), py: key('python') };
  const env: Record<string, string> = rateLimit ? { MEDIA_INDEX_RATE_LIMIT: String(rateLimit), MEDIA_INDEX_RATE_WINDOW_MS: '2000' } : {};
  const serve = startServe(['--data', data, '--workers', '2'], env);
  const stop = async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    fs.rmSync(data, { recursive: true, force: true });
  };
  return { keys, url: serve.url, stop };
}
let services: Record<'plain' | 'limited', ReturnType<typeof service>>;

beforeAll(async () => {
  services = { plain: service(), limited: service(4) };
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-clients-'));
  doc = path.join(work, 'openapi.json');
  fs.writeFileSync(doc, await (await fetch(`${await services.plain.url}/api/v1/openapi.json`)).text());
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(services ?? {}).map((s) => s.stop()));
  fs.rmSync(work, { recursive: true, force: true });
});

/** What the tour prints for the four files, the same from either language; what it waited out. */
function expectTour(out: string): { rateLimited: number; busy: number } {
  const lines = out.trim().split('\n');
  expect(lines.slice(0, 8)).toEqual([
    'uploaded a-text.pdf: processing',
    ...FILES.slice(1).map((f) => `uploaded ${path.basename(f)}: processing`),
    'completed a-text.pdf: document, 2 page(s)',
    ...FILES.slice(1).map((f) => expect.stringMatching(new RegExp(`^completed ${path.basename(f)}: image, (null|None) page\\(s\\)$`))),
  ]);
  expect(lines[8]).toMatch(/^page 1 of 2: [1-9]\d* passages, [1-9]\d* text regions$/);
  expect(lines[9]).toMatch(new RegExp(`^search "${QUERY}": [1-5] hits, best a-text.pdf page 1$`));
  expect(lines[10]).toMatch(/^recall: evidence found, [1-9]\d* moment\(s\)$/);
  expect(lines.slice(11, 14)).toEqual(['named a person of 3 face(s): Ada', 'people: Ada', 'listed 4 assets in 2 pages']);
  const waited = /^waited out: (\d+) rate limited, (\d+) busy$/.exec(lines[14]);
  expect(waited, lines[14]).not.toBeNull();
  expect(lines).toHaveLength(15);
  return { rateLimited: Number(waited![1]), busy: Number(waited![2]) };
}

/** Runs the tour on both services: busy waited out on the plain one, 429s on the limited one. */
async function tourBoth(run: (url: string, key: string) => { status: number | null; stdout: string; stderr: string }, lang: 'ts' | 'py') {
  for (const [name, s] of Object.entries(services)) {
    const r = run(await s.url, s.keys[lang]);
    process.stdout.write(`${lang} tour on the ${name} service:\n${r.stdout}`);
    expect(r.status, r.stderr).toBe(0);
    const waited = expectTour(r.stdout);
    if (name === 'plain')
      expect(waited.busy).toBeGreaterThan(0); // the second re-group asked for while the first ran
    else expect(waited.rateLimited).toBeGreaterThan(0); // 429s met and waited out by Retry-After
  }
}

describe('clients generated from the served OpenAPI document', () => {
  it('TypeScript (openapi-typescript + openapi-fetch): generates without a warning, type-checks the script and runs it', async () => {
    const dir = path.join(work, 'ts');
    fs.mkdirSync(dir);
    for (const f of ['generate.ts', 'tour.ts']) fs.copyFileSync(path.join(ROOT, 'docs/scripts', f), path.join(dir, f));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const gen = spawnSync(path.join(BIN, 'tsx'), ['generate.ts', await services.plain.url, 'schema.ts'], { cwd: dir, encoding: 'utf8' });
    expect(gen.status, gen.stderr).toBe(0);
    expect(`${gen.stdout}${gen.stderr}`).toBe('schema.ts written\n'); // no warning
    const compilerOptions = {
      module: 'nodenext',
      target: 'es2022',
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      types: ['node'],
      skipLibCheck: true,
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['generate.ts', 'tour.ts'] }));
    const tsc = spawnSync(path.join(BIN, 'tsc'), ['-p', dir], { encoding: 'utf8' });
    expect(tsc.status, tsc.stdout).toBe(0);
    const env = { ...process.env };
    await tourBoth(
      (url, key) =>
        spawnSync(path.join(BIN, 'tsx'), ['tour.ts', QUERY, ...FILES], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...env, MEDIA_INDEX_URL: url, MEDIA_INDEX_KEY: key },
          timeout: 240_000,
        }),
      'ts',
    );
  }, 300_000);

  it('Python (openapi-python-client): generates without a warning and runs the script', async () => {
    const venv = inject('venv');
    const dir = path.join(work, 'py');
    fs.mkdirSync(dir);
    const env = { ...process.env, PATH: `${path.join(venv, 'bin')}:${process.env.PATH}` };
    const gen = spawnSync(
      path.join(venv, 'bin', 'openapi-python-client'),
      ['generate', '--path', doc, '--meta', 'none', '--output-path', path.join(dir, 'media_index_client')],
      { encoding: 'utf8', env },
    );
    expect(gen.status, gen.stdout + gen.stderr).toBe(0);
    expect(`${gen.stdout}${gen.stderr}`.trim()).toBe(`Generating ${path.join(dir, 'media_index_client')}`);
    fs.copyFileSync(path.join(ROOT, 'docs/scripts/tour.py'), path.join(dir, 'tour.py'));
    await tourBoth(
      (url, key) =>
        spawnSync(path.join(venv, 'bin', 'python'), ['tour.py', QUERY, ...FILES], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...env, MEDIA_INDEX_URL: url, MEDIA_INDEX_KEY: key },
          timeout: 240_000,
        }),
      'py',
    );
  }, 300_000);
});
