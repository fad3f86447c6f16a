// The service as `npm start` runs it: compiled into dist/server (scripts/build-server.mjs), its
// indexer processes and worker threads started from the compiled modules, with no TypeScript
// loader anywhere; and the command line running the sources while the build is older than them.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, entryPoints, OUT_DIR } from '../scripts/build-server.mjs';
import { compiledIsCurrent } from '../bin/compiled.js';
import { CLI, startServe } from './helpers/serve.ts';
import { corpus } from './helpers/corpus.ts';
import { tempDir } from './helpers/server.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';

const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const children = (pid: number) => fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

describe('the compiled service', () => {
  const data = tempDir('mi-compiled-');
  const folder = tempDir('mi-compiled-lib-');
  let key: string;
  let serve: ReturnType<typeof startServe>;
  let url: string;
  const api = async (method: string, p: string, json?: unknown) => {
    const r = await fetch(`${url}/api/v1${p}`, {
      method,
      headers: { 'X-API-Key': key, ...(json ? { 'Content-Type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: r.status, body: (await r.json()) as { data: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  beforeAll(async () => {
    if (!compiledIsCurrent()) await buildServer();
    const store = openStore(data);
    key = new AuthService(store).createKey({ workspace: 'compiled', scopes: ['read', 'write'] }).key;
    store.close();
    fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(folder, 'a-text.pdf'));
    serve = startServe(['--data', data, '--workers', '1'], { MEDIA_INDEX_LIBRARY_ROOTS: folder, MEDIA_INDEX_LIBRARY_CHECK_MS: '150' });
    url = await serve.url;
  }, 120_000);
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    fs.rmSync(data, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('has an entry for the command line, the indexer process and every worker thread module', () => {
    for (const entry of entryPoints()) {
      const out = path.join(OUT_DIR, path.relative('server', entry).replace(/\.ts$/, '.mjs'));
      expect(fs.existsSync(out), out).toBe(true);
    }
    expect(entryPoints()).toContain('server/libraries/fs.worker.ts');
  });

  it('follows a folder (worker thread), indexes it (indexer process) and answers a search, all compiled', async () => {
    const lib = await api('POST', '/libraries', { path: folder });
    expect(lib.status).toBe(201);
    const deadline = Date.now() + 90_000;
    for (;;) {
      const list = (await api('GET', '/videos?limit=10')).body.data as Array<{ status: string }>;
      if (list.length === 1 && list[0].status === 'completed') break;
      if (Date.now() > deadline) throw new Error(`the folder's file was not indexed: ${JSON.stringify(list)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // The indexer process that did the work (started on demand).
    const indexers = children(serve.child.pid as number)
      .map(cmdline)
      .filter((c) => c[0] === process.execPath);
    expect(indexers).toHaveLength(1);
    expect(indexers[0]).toContain(path.join(OUT_DIR, 'indexer', 'worker.mjs'));
    expect(indexers[0].join(' ')).not.toMatch(/tsx|--import/);
    // With malloc held to two arenas (launcher.ts indexerEnv).
    const pid = children(serve.child.pid as number).find((p) => cmdline(p)[0] === process.execPath) as number;
    expect(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
    const hits = (await api('POST', '/search', { query: 'second page', engine: 'arrow' })).body.data.hits as Array<{ file_name?: string; page?: number }>;
    expect(hits.length).toBeGreaterThan(0);
  }, 120_000);

  it('runs the sources instead where they are newer than the build, or where asked to', () => {
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import('${CLI.replace('media-index.js', 'compiled.js')}').then((m) => console.log(m.compiledIsCurrent()))`],
      {
        encoding: 'utf8',
        env: { ...process.env, MEDIA_INDEX_SOURCES: '1' },
      },
    );
    expect(r.stdout.trim()).toBe('false');
    const source = path.resolve('server', 'paths.ts');
    const mtime = fs.statSync(source).mtime;
    const later = new Date(fs.statSync(path.join(OUT_DIR, 'cli.mjs')).mtimeMs + 1000);
    try {
      fs.utimesSync(source, later, later);
      expect(compiledIsCurrent()).toBe(false);
    } finally {
      fs.utimesSync(source, mtime, mtime);
    }
    expect(compiledIsCurrent()).toBe(true);
  });
});
