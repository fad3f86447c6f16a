// `media-index libraries add|list|scan|remove`. While the service runs on the data folder (serve or
// the desktop app), the commands go to it over its API with a key made for the purpose and revoked
// after; otherwise they open the folder themselves (and `add` / `scan` index with a progress bar
// until the library has settled).
import cliProgress from 'cli-progress';
import type { Command, Option } from 'commander';
import { defaultDataDir, loadConfig } from './config.ts';
import { openStore } from './store/index.ts';
import { runningService } from './store/service-file.ts';
import { AuthService } from './services/auth.service.ts';
import { openCore } from './server.ts';
import { AppError } from './errors.ts';
import type { Library } from './contract/libraries.ts';

type Fail = (message: string, code?: number) => never;

interface Target {
  add(path: string, exclude: string[]): Promise<Library>;
  list(): Promise<Library[]>;
  get(id: string): Promise<Library>;
  scan(id: string): Promise<void>;
  remove(id: string): Promise<{ assets_removed: number }>;
  /** True while the library is being followed by this process (no service running). */
  local: boolean;
  close(): Promise<void>;
}

/** The running service, through its API. */
function remote(dataDir: string, url: string, workspace: string): Target {
  const store = openStore(dataDir);
  const auth = new AuthService(store);
  const key = auth.createKey({ workspace, scopes: ['read', 'write'], expiresInMs: 15 * 60_000, label: 'media-index libraries (CLI)' });
  store.close();
  const call = async <T>(method: string, p: string, json?: unknown): Promise<T> => {
    const r = await fetch(`${url}/api/v1${p}`, {
      method,
      headers: { 'X-API-Key': key.key, ...(json ? { 'Content-Type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    const body = (await r.json()) as { success: boolean; data: T; error?: { code: string; message: string; status: number } };
    if (!body.success) throw new AppError(body.error?.code ?? 'error', body.error?.status ?? r.status, body.error?.message ?? `HTTP ${r.status}`);
    return body.data;
  };
  return {
    local: false,
    add: (p, exclude) => call('POST', '/libraries', { path: p, exclude }),
    list: () => call('GET', '/libraries?limit=200'),
    get: (id) => call('GET', `/libraries/${encodeURIComponent(id)}`),
    scan: async (id) => void (await call('POST', `/libraries/${encodeURIComponent(id)}/scan`)),
    remove: (id) => call('DELETE', `/libraries/${encodeURIComponent(id)}`),
    async close() {
      const s = openStore(dataDir);
      new AuthService(s).revoke(key.id);
      s.close();
    },
  };
}

/** This process opens the data folder (no service is running). */
async function local(dataDir: string, workspace: string, workers: number | undefined): Promise<Target> {
  const core = await openCore(loadConfig({ dataDir, workers }), { lockInfo: 'media-index libraries', log: () => {} });
  const ws = core.store.workspaces.ensure(workspace).row.id;
  const libs = core.services.libraries;
  return {
    local: true,
    add: async (p, exclude) => libs.add(ws, { path: p, exclude }),
    list: async () => libs.list(ws, 200, 0).items,
    get: async (id) => libs.get(ws, id),
    scan: async (id) => void libs.scan(ws, id),
    remove: async (id) => {
      const r = await libs.remove(ws, id);
      await core.purger.settled();
      return r;
    },
    close: () => core.close(),
  };
}

function line(l: Library): string {
  const state = l.status === 'offline' || l.status === 'error' ? `${l.status}: ${l.error}` : l.status;
  return `${l.library_id}  ${l.path}  ${state}  ${l.assets} assets, ${l.pending} pending, ${l.refused + l.unreadable} not indexed${l.exclude.length ? `  exclude ${l.exclude.join(' ')}` : ''}`;
}

/** Shows the library's progress until it has scanned and every asset is indexed. */
async function follow(target: Target, id: string): Promise<Library> {
  const bar = new cliProgress.SingleBar(
    { format: '{bar} {value}/{total} indexed | {status}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 2000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(1, 0, { status: 'scanning' });
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const l = await target.get(id);
    bar.setTotal(Math.max(1, l.assets));
    bar.update(l.assets - Math.min(l.assets, l.pending), { status: l.scan.running ? `scanning, ${l.scan.files_walked} files walked` : l.status });
    if (!l.scan.running && !l.scan.queued && l.status !== 'scanning' && l.pending === 0) {
      bar.stop();
      return l;
    }
  }
}

export function registerLibraryCommands(program: Command, dataOption: () => Option, fail: Fail): void {
  const cmd = program.command('libraries').description('folders indexed in place and kept in sync (add, list, scan, remove)');
  const open = async (opts: { data?: string; workspace: string; workers?: number }): Promise<Target> => {
    const dataDir = opts.data ?? defaultDataDir();
    const service = runningService(dataDir);
    return service ? remote(dataDir, service.url, opts.workspace) : local(dataDir, opts.workspace, opts.workers);
  };
  const run = async (opts: { data?: string; workspace: string; workers?: number }, fn: (t: Target) => Promise<void>) => {
    const target = await open(opts);
    try {
      await fn(target);
    } catch (err) {
      if (err instanceof AppError) fail(err.message, 2);
      throw err;
    } finally {
      await target.close();
    }
  };
  const common = (c: Command) => c.addOption(dataOption()).option('--workspace <name>', 'workspace', 'default');

  common(cmd.command('add <folder>').description('add a folder: indexed in place, then kept in sync'))
    .option('--exclude <glob...>', 'patterns to leave out, relative to the folder (e.g. "raw/**" "*.tmp")')
    .option('--wait', 'with a running service: wait until the folder is indexed')
    .option('--workers <n>', 'indexer processes (without a running service)', (v) => Number(v))
    .action((folder: string, opts: { data?: string; workspace: string; exclude?: string[]; wait?: boolean; workers?: number }) =>
      run(opts, async (t) => {
        const l = await t.add(folder, opts.exclude ?? []);
        process.stdout.write(`added ${l.library_id}  ${l.path}\n`);
        if (t.local || opts.wait) process.stdout.write(`${line(await follow(t, l.library_id))}\n`);
        else process.stdout.write('the running service is scanning it; `media-index libraries list` shows its progress\n');
      }),
    );

  common(cmd.command('list').description('list the libraries with their state'))
    .option('--json', 'print JSON')
    .action((opts: { data?: string; workspace: string; json?: boolean }) => {
      const dataDir = opts.data ?? defaultDataDir();
      const service = runningService(dataDir);
      if (!service) {
        // Read-only: nothing to follow, so the folder is not opened for indexing.
        const store = openStore(dataDir);
        try {
          const ws = store.workspaces.byName(opts.workspace);
          const rows = ws ? store.libraries.list(ws.id) : [];
          if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          else if (rows.length === 0) process.stdout.write('no libraries\n');
          for (const r of opts.json ? [] : rows) {
            const c = store.libraries.counts(r.id);
            process.stdout.write(`${r.id}  ${r.path}  ${r.status}${r.error ? `: ${r.error}` : ''}  ${c.assets} assets  (service not running)\n`);
          }
        } finally {
          store.close();
        }
        return;
      }
      return run(opts, async (t) => {
        const all = await t.list();
        if (opts.json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
        else if (all.length === 0) process.stdout.write('no libraries\n');
        else for (const l of all) process.stdout.write(`${line(l)}\n`);
      });
    });

  common(cmd.command('scan <id>').description('scan a library in full now'))
    .option('--wait', 'with a running service: wait until the scan and indexing are done')
    .option('--workers <n>', 'indexer processes (without a running service)', (v) => Number(v))
    .action((id: string, opts: { data?: string; workspace: string; wait?: boolean; workers?: number }) =>
      run(opts, async (t) => {
        await t.scan(id);
        if (t.local || opts.wait) process.stdout.write(`${line(await follow(t, id))}\n`);
        else process.stdout.write(`scan of ${id} started\n`);
      }),
    );

  common(cmd.command('remove <id>').description('remove a library: its assets leave the index; your files are never touched')).action(
    (id: string, opts: { data?: string; workspace: string }) =>
      run({ ...opts, workers: 0 }, async (t) => {
        const r = await t.remove(id);
        process.stdout.write(`removed ${id}: ${r.assets_removed} asset(s) left the index; no file was touched\n`);
      }),
  );
}
