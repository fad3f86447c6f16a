// `media-index libraries add|list|scan|remove`. While the service runs on the data folder (serve or
// the desktop app), the commands go to it over its API with a key made for the purpose and revoked
// after; otherwise they open the folder themselves (and `add` / `scan` index with a progress bar
// until the library has settled).
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import createClient from 'openapi-fetch';
import type { paths } from '../contract/openapi.gen.ts';
import { defaultDataDir, loadConfig } from '../config.ts';
import { runningService } from '../store/service-file.ts';
import { openCore } from '../server.ts';
import { AppError } from '../errors.ts';
import type { Library } from '../contract/libraries.ts';
import { dataOption, fail, jsonLine, withServices } from './shared.ts';
import { counted } from './counted.ts';

interface Target {
  add(path: string, exclude: string[], stackRaw: boolean): Promise<Library>;
  list(): Promise<Library[]>;
  get(id: string): Promise<Library>;
  scan(id: string): Promise<void>;
  remove(id: string): Promise<{ assets_removed: number }>;
  /** True while the library is being followed by this process (no service running). */
  local: boolean;
  close(): Promise<void>;
}

/** The running service, through its API. */
async function remote(dataDir: string, url: string, workspace: string): Promise<Target> {
  const key = await withServices(dataDir, (s) =>
    s.auth.createKey({ workspace, scopes: ['read', 'write'], expiresInMs: 15 * 60_000, label: 'media-index libraries (CLI)' }),
  );
  const api = createClient<paths>({ baseUrl: url, headers: { 'X-API-Key': key.key } });
  /** The answer's data, or its error envelope as the AppError it stands for. */
  const data = async <T>(request: Promise<{ data?: { data: T }; error?: { error: { code: string; message: string } }; response: Response }>): Promise<T> => {
    const { data, error, response } = await request;
    if (data) return data.data;
    throw new AppError(error?.error.code ?? 'error', response.status, error?.error.message ?? `HTTP ${response.status}`);
  };
  const id = (library: string) => ({ params: { path: { id: library } } });
  return {
    local: false,
    add: (p, exclude, stackRaw) => data(api.POST('/api/v1/libraries', { body: { path: p, exclude, stack_raw: stackRaw } })),
    list: () => data(api.GET('/api/v1/libraries', { params: { query: { limit: 200 } } })),
    get: (library) => data(api.GET('/api/v1/libraries/{id}', id(library))),
    scan: async (library) => void (await data(api.POST('/api/v1/libraries/{id}/scan', id(library)))),
    remove: (library) => data(api.DELETE('/api/v1/libraries/{id}', id(library))),
    async close() {
      await withServices(dataDir, (s) => s.auth.revoke(key.id));
    },
  };
}

/** This process opens the data folder (no service is running). */
async function local(dataDir: string, workspace: string, workers: number | undefined): Promise<Target> {
  const core = await openCore(loadConfig({ dataDir, workers }), { lockInfo: 'media-index libraries', log: () => {} });
  const ws = core.services.workspaces.ensure(workspace).row.id;
  const libs = core.services.libraries;
  return {
    local: true,
    add: async (p, exclude, stackRaw) => libs.add(ws, { path: p, exclude, stack_raw: stackRaw }),
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
  return `${l.library_id}  ${l.path}  ${state}  ${l.assets} assets, ${l.pending} pending, ${l.refused + l.unreadable} skipped${l.exclude.length ? `  exclude ${l.exclude.join(' ')}` : ''}`;
}

/**
 * Shows the library's progress until it has scanned and every asset is indexed: a progress bar, or
 * (json) a `progress` line whenever it changes. Sets exit code 2 when a file was refused or unreadable.
 */
async function follow(target: Target, id: string, json = false): Promise<Library> {
  const bar = json
    ? null
    : new cliProgress.SingleBar(
        { format: '{bar} {value}/{total} indexed | {status}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 2000 },
        cliProgress.Presets.shades_classic,
      );
  bar?.start(1, 0, { status: 'scanning' });
  let last = '';
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const l = await target.get(id);
    const status = l.scan.running ? `scanning, ${l.scan.files_walked} files walked` : l.status;
    const indexed = l.assets - Math.min(l.assets, l.pending);
    bar?.setTotal(Math.max(1, l.assets));
    bar?.update(indexed, { status });
    const progress = {
      event: 'progress',
      library_id: id,
      status: l.status,
      scanning: l.scan.running,
      files_walked: l.scan.files_walked,
      assets: l.assets,
      pending: l.pending,
    };
    const said = JSON.stringify(progress);
    if (json && said !== last) jsonLine(progress);
    last = said;
    if (!l.scan.running && !l.scan.queued && l.status !== 'scanning' && l.pending === 0) {
      bar?.stop();
      if (l.refused + l.unreadable > 0) process.exitCode = 2;
      return l;
    }
  }
}

/** After `add` or `scan`: the library followed until settled (or, without --wait, where it stands). */
async function report(t: Target, id: string, opts: { wait?: boolean; json?: boolean }, started: string): Promise<void> {
  if (t.local || opts.wait) {
    const l = await follow(t, id, opts.json);
    if (opts.json) jsonLine({ event: 'summary', library: l, exit_code: process.exitCode ?? 0 });
    else process.stdout.write(`${line(l)}\n`);
  } else if (opts.json) {
    jsonLine({ event: 'summary', library: await t.get(id), exit_code: 0 });
  } else {
    process.stdout.write(`${started}\n`);
  }
}

export function registerLibraries(program: Command): void {
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
    .option('--no-stack-raw', 'index a camera RAW file and the JPEG of the same name as two assets (stacked as one by default)')
    .option('--wait', 'with a running service: wait until the folder is indexed')
    .option('--workers <n>', 'indexer processes (without a running service)', (v) => Number(v))
    .option('--json', 'one JSON object per line: added, progress while it is indexed, then a summary; exit code 2 when a file was refused or unreadable')
    .action(
      (folder: string, opts: { data?: string; workspace: string; exclude?: string[]; stackRaw: boolean; wait?: boolean; workers?: number; json?: boolean }) =>
        run(opts, async (t) => {
          const l = await t.add(folder, opts.exclude ?? [], opts.stackRaw);
          if (opts.json) jsonLine({ event: 'added', library_id: l.library_id, path: l.path });
          else process.stdout.write(`added ${l.library_id}  ${l.path}\n`);
          await report(t, l.library_id, opts, 'the running service is scanning it; `media-index libraries list` shows its progress');
        }),
    );

  common(cmd.command('list').description('list the libraries with their state'))
    .option('--json', 'print JSON')
    .action((opts: { data?: string; workspace: string; json?: boolean }) => {
      const dataDir = opts.data ?? defaultDataDir();
      const service = runningService(dataDir);
      if (!service) {
        // Read-only: nothing to follow, so the folder is not opened for indexing.
        return withServices(dataDir, (s) => {
          const ws = s.workspaces.localReader(opts.workspace)?.workspaceId;
          const all = ws ? s.libraries.list(ws, 200, 0).items : [];
          if (opts.json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
          else if (all.length === 0) process.stdout.write('no libraries\n');
          for (const l of opts.json ? [] : all) {
            process.stdout.write(`${l.library_id}  ${l.path}  ${l.status}${l.error ? `: ${l.error}` : ''}  ${l.assets} assets  (service not running)\n`);
          }
        });
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
    .option('--json', 'one JSON object per line: progress while it is indexed, then a summary')
    .action((id: string, opts: { data?: string; workspace: string; wait?: boolean; workers?: number; json?: boolean }) =>
      run(opts, async (t) => {
        await t.scan(id);
        await report(t, id, opts, `scan of ${id} started`);
      }),
    );

  common(cmd.command('remove <id>').description('remove a library: its assets leave the index; your files are never touched')).action(
    (id: string, opts: { data?: string; workspace: string }) =>
      run({ ...opts, workers: 0 }, async (t) => {
        const r = await t.remove(id);
        process.stdout.write(`removed ${id}: ${counted(r.assets_removed, 'asset')} left the index; no file was touched\n`);
      }),
  );
}
