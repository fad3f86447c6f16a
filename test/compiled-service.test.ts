// The service as `npm start` runs it: compiled (scripts/build-server.mjs), its indexer processes and
// worker threads started from the build's modules, with no TypeScript loader anywhere; a build is
// run only while no source is newer than those it was made from; a new build leaves the one a
// running service uses in place.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, entryPoints } from '../scripts/build-server.mjs';
import { currentBuild } from '../bin/compiled.js';
import { CLI, startServe } from './helpers/serve.ts';
import { corpus } from './helpers/corpus.ts';
import { tempDir } from './helpers/server.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { placeIn, placesFromBytes } from '../server/places/gazetteer.ts';

const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const children = (pid: number) => fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

describe('the compiled service', () => {
  const data = tempDir('mi-compiled-');
  const folder = tempDir('mi-compiled-lib-');
  let key: string;
  let build: string;
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
    build = currentBuild() ?? (await buildServer());
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
      const out = path.join(build, path.relative('server', entry).replace(/\.ts$/, '.mjs'));
      expect(fs.existsSync(out), out).toBe(true);
    }
    expect(entryPoints()).toContain('server/libraries/fs.worker.ts');
    // The gazetteer's arrays, which its processes read instead of building them from the packages.
    const places = placesFromBytes(fs.readFileSync(path.join(build, 'places.bin')));
    expect(places && placeIn(places, 48.8584, 2.2945)?.city).toBe('Paris');
  });

  it("keeps the API's schema library out of every module an indexer process, the file-system thread or the command line's first module may load", () => {
    // zod is ≈ 0.4 MB of code that each indexer process, and the libraries' file-system thread,
    // would compile and run as they start, before their first file (docs/performance.md): their
    // modules import the contract's plain names (contract/files.ts, contract/extensions.ts), never
    // its schemas. Followed here through static and dynamic imports from each entry, as the build
    // wrote them.
    const modulesOf = (entry: string) => {
      const loaded = new Set<string>();
      const walk = (file: string) => {
        if (loaded.has(file)) return;
        loaded.add(file);
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+\.mjs)"/g))
          walk(path.resolve(path.dirname(file), m[1]));
      };
      walk(path.join(build, entry));
      return [...loaded];
    };
    const withSchemas = (modules: string[]) => modules.filter((f) => fs.readFileSync(f, 'utf8').includes('// node_modules/zod/')).map((f) => path.basename(f));
    const indexer = modulesOf('indexer/worker.mjs');
    const runners = indexer.filter((f) => /\/(extract|metadata|ocr|faces)\.run-[^/]+\.mjs$/.test(f));
    expect(runners).toHaveLength(4); // the walk reaches the stages' modules
    expect(withSchemas(indexer)).toEqual([]);
    const walker = modulesOf('libraries/fs.worker.mjs');
    expect(walker.some((f) => fs.readFileSync(f, 'utf8').includes('// server/libraries/exclude.ts'))).toBe(true);
    expect(withSchemas(walker)).toEqual([]);
    // The file-type sniffer it loads on its first file comes from the build, one module, not from
    // node_modules' dozens.
    expect(walker.some((f) => fs.readFileSync(f, 'utf8').includes('// node_modules/file-type/core.js'))).toBe(true);
    expect(withSchemas(modulesOf('cli/ahead.mjs'))).toEqual([]);
    // The command line does load it: the same walk finds it there.
    const cli = fs.readFileSync(path.join(build, 'cli.mjs'), 'utf8');
    const cliChunks = [...cli.matchAll(/from\s*"(\.\/chunk-[^"]+\.mjs)"/g)].map((m) => fs.readFileSync(path.join(build, m[1]), 'utf8'));
    expect(cliChunks.some((s) => s.includes('// node_modules/zod/'))).toBe(true);
  });

  it("holds the schema library's messages in English only", () => {
    // Its other 48 languages were ≈ 0.37 MB that every start of the command line and the service compiled.
    const locales = fs
      .readdirSync(build)
      .filter((f) => f.endsWith('.mjs'))
      .flatMap((f) => [...fs.readFileSync(path.join(build, f), 'utf8').matchAll(/^\/\/ node_modules\/zod\/v4\/locales\/([^\n]+)$/gm)].map((m) => m[1]));
    expect(locales).toEqual(['en.js']);
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
    const indexers = children(serve.child.pid as number).filter((p) => cmdline(p)[0] === process.execPath);
    expect(indexers).toHaveLength(1);
    expect(cmdline(indexers[0])).toContain(path.join(build, 'indexer', 'worker.mjs'));
    expect(cmdline(indexers[0]).join(' ')).not.toMatch(/tsx|--import/);
    // With malloc held to two arenas (launcher.ts indexerEnv) unless the environment says otherwise,
    const environ = fs.readFileSync(`/proc/${indexers[0]}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}`);
    // And blocks of 1 MiB or more mapped apart, given back when freed.
    expect(environ).toContain(`MALLOC_MMAP_THRESHOLD_=${process.env.MALLOC_MMAP_THRESHOLD_ ?? String(2 ** 20)}`);
    const hits = (await api('POST', '/search', { query: 'second page', engine: 'arrow' })).body.data.hits as Array<{ video_id: string }>;
    expect(hits.length).toBeGreaterThan(0);
    // No passage vectors here (no sentence encoder installed): the vector index's native library was
    // never needed, and the service never loaded it.
    expect(fs.readFileSync(`/proc/${serve.child.pid}/maps`, 'utf8')).not.toMatch(/usearch/);
  }, 120_000);

  it('runs a build only while no source is newer than it was made from, or unless asked for the sources', () => {
    const sources = tempDir('mi-compiled-src-');
    try {
      const file = path.join(sources, 'a.ts');
      fs.writeFileSync(file, '');
      const made = (JSON.parse(fs.readFileSync(path.join(build, 'build.json'), 'utf8')) as { sources_mtime: number }).sources_mtime;
      fs.utimesSync(file, new Date(made - 1000), new Date(made - 1000));
      expect(currentBuild(sources)).toBe(build);
      fs.utimesSync(file, new Date(made + 1000), new Date(made + 1000));
      expect(currentBuild(sources)).toBeNull();
    } finally {
      fs.rmSync(sources, { recursive: true, force: true });
    }
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import('${CLI.replace('media-index.js', 'compiled.js')}').then((m) => console.log(m.currentBuild()))`],
      { encoding: 'utf8', env: { ...process.env, MEDIA_INDEX_SOURCES: '1' } },
    );
    expect(r.stdout.trim()).toBe('null');
  });

  it('leaves the running service its build when a new one is made: an indexer process started after it runs the old build', async () => {
    const next = await buildServer();
    expect(next).not.toBe(build);
    expect(currentBuild()).toBe(next);
    // The indexer process dies; the service starts another, from its own build, which indexes a new file.
    const [old] = children(serve.child.pid as number).filter((p) => cmdline(p)[0] === process.execPath);
    process.kill(old, 'SIGKILL');
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'A note written while the service ran, about a heron by the river.\n');
    const deadline = Date.now() + 90_000;
    for (;;) {
      const list = (await api('GET', '/videos?limit=10')).body.data as Array<{ status: string }>;
      if (list.length === 2 && list.every((a) => a.status === 'completed')) break;
      if (Date.now() > deadline) throw new Error(`the new file was not indexed: ${JSON.stringify(list)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const [again] = children(serve.child.pid as number).filter((p) => cmdline(p)[0] === process.execPath);
    expect(again).not.toBe(old);
    expect(cmdline(again)).toContain(path.join(build, 'indexer', 'worker.mjs'));
  }, 120_000);
});
