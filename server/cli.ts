// `media-index`: the service without the desktop shell. Every command takes --data DIR
// (default: MEDIA_INDEX_DATA, else the per-user app data folder).
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import cliProgress from 'cli-progress';
import { defaultDataDir, loadConfig } from './config.ts';
import { openStore, type Store } from './store/index.ts';
import { AuthService, parseDuration, parseScopes } from './services/auth.service.ts';
import { AssetsService } from './services/assets.service.ts';
import { IndexOptionsService } from './services/index-options.service.ts';
import { ensureFirstKey } from './services/bootstrap.service.ts';
import { openCore, startServer } from './server.ts';
import { AppError } from './errors.ts';
import { DataFolderBusyError } from './store/lock.ts';
import { PIPELINES } from './contract/assets.ts';
import { StageQueue } from './indexer/queue.ts';
import type { RunFinishedEvent } from './indexer/host.ts';
import { VERSION } from './version.ts';
import { importModel } from './ml/model-import.ts';
import { manifest, ModelError, modelStatus, modelsDir, removeModel, requireModel, verifyModel } from './ml/models.ts';
import { pullModel } from './ml/model-download.ts';
import { executionProvider } from './ml/providers.ts';
import { UrlSigner } from './services/signing.service.ts';
import { SearchService } from './services/search.service.ts';
import { Presenter } from './api/present.ts';
import { SearchRequest } from './contract/search.ts';
import { collectFiles } from './media/collect.ts';
import { registerLibraryCommands } from './cli-libraries.ts';

// A closed pipe (`media-index search … | head`) ends the command quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const program = new Command('media-index').description('Local index of your videos, photos and documents').version(VERSION).showHelpAfterError();

function dataOption(): Option {
  return new Option('--data <dir>', 'data folder (env MEDIA_INDEX_DATA)').default(undefined, defaultDataDir());
}

function withStore<T>(dataDir: string | undefined, fn: (store: Store) => T): T {
  const store = openStore(dataDir ?? defaultDataDir());
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

async function withStoreAsync<T>(dataDir: string | undefined, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(dataDir ?? defaultDataDir());
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

function fail(message: string, code = 1): never {
  process.stderr.write(`media-index: ${message}\n`);
  process.exit(code);
}

program
  .command('serve')
  .description('run the local API server in the foreground')
  .addOption(dataOption())
  .option('--port <n>', 'port (0 picks a free one)', (v) => Number(v))
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--workers <n>', 'indexer processes (0 pauses indexing)', (v) => Number(v))
  .action(async (opts: { data?: string; port?: number; host: string; workers?: number }) => {
    const config = loadConfig({ dataDir: opts.data, host: opts.host, port: opts.port, workers: opts.workers });
    if (!['127.0.0.1', 'localhost', '::1'].includes(config.host)) {
      process.stderr.write(`warning: binding ${config.host} exposes the API beyond this machine\n`);
    }
    let server;
    try {
      server = await startServer(config);
    } catch (err) {
      if (err instanceof DataFolderBusyError) fail(`${err.message}\nStop it first, or use another --data folder.`);
      throw err;
    }
    const first = ensureFirstKey(server.store, config.dataDir);
    process.stdout.write(`listening on ${server.url}\n`);
    process.stderr.write(first.created ? `first API key written to ${first.path}\n` : `data folder ${path.resolve(config.dataDir)}\n`);
    if (fs.existsSync(path.join(config.uiDir, 'index.html'))) {
      process.stderr.write(`app: open ${server.url}/ in a browser and paste an API key${first.created ? ` (the one in ${first.path})` : ''}\n`);
    }
    let closing = false;
    const shutdown = (signal: string) => {
      if (closing) return;
      closing = true;
      process.stderr.write(`${signal}: shutting down\n`);
      void server.close().then(() => process.exit(0));
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  });

const keys = program.command('keys').description('create, list and revoke API keys');

keys
  .command('create')
  .description('create a key; prints the plaintext once, as the last line')
  .addOption(dataOption())
  .requiredOption('--workspace <name>', 'workspace the key is bound to (created if new)')
  .requiredOption('--scopes <scopes>', '"read" or "read,write"')
  .option('--expires-in <duration>', 'e.g. 30d, 12h')
  .option('--access <workspaces>', 'other workspaces this key may search (read only), comma-separated')
  .option('--label <text>', 'a note to recognise the key by')
  .action((opts: { data?: string; workspace: string; scopes: string; expiresIn?: string; access?: string; label?: string }) => {
    withStore(opts.data, (store) => {
      const created = new AuthService(store).createKey({
        workspace: opts.workspace,
        scopes: parseScopes(opts.scopes),
        expiresInMs: opts.expiresIn ? parseDuration(opts.expiresIn) : null,
        access: opts.access
          ? opts.access
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [],
        label: opts.label ?? null,
      });
      if (created.workspace_created) process.stdout.write(`created workspace ${created.workspace}\n`);
      process.stdout.write(
        `key ${created.id} for workspace ${created.workspace}, scopes ${created.scopes.join(',')}` +
          `${created.expires_at ? `, expires ${new Date(created.expires_at).toISOString()}` : ''}` +
          `${created.access.length ? `, may also search ${created.access.join(',')}` : ''}\n`,
      );
      process.stdout.write(`${created.key}\n`);
    });
  });

keys
  .command('list')
  .description('list keys (never their secrets)')
  .addOption(dataOption())
  .option('--json', 'print JSON')
  .action((opts: { data?: string; json?: boolean }) => {
    withStore(opts.data, (store) => {
      const list = new AuthService(store).list();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        return;
      }
      const now = Date.now();
      for (const k of list) {
        const state = k.revoked_at ? 'revoked' : k.expires_at && k.expires_at <= now ? 'expired' : 'active';
        process.stdout.write(
          `${k.id}  ${k.workspace}  ${k.scopes}  ${state}` +
            `${k.expires_at ? `  expires ${new Date(k.expires_at).toISOString()}` : ''}` +
            `${k.access.length ? `  access ${k.access.join(',')}` : ''}\n`,
        );
      }
      if (list.length === 0) process.stdout.write('no keys\n');
    });
  });

keys
  .command('revoke <id>')
  .description('revoke a key at once')
  .addOption(dataOption())
  .action((id: string, opts: { data?: string }) => {
    withStore(opts.data, (store) => {
      if (!new AuthService(store).revoke(id)) fail(`no active key ${id}`);
      process.stdout.write(`revoked ${id}\n`);
    });
  });

const workspaces = program.command('workspaces').description('list, create and flag workspaces');

workspaces
  .command('list', { isDefault: true })
  .description('list workspaces')
  .addOption(dataOption())
  .action((opts: { data?: string }) => {
    withStore(opts.data, (store) => {
      for (const w of store.workspaces.list()) {
        process.stdout.write(`${w.id}  ${w.name}  ${w.asset_count} assets  ${w.key_count} keys${w.read_only ? '  read-only' : ''}\n`);
      }
    });
  });

workspaces
  .command('create <name>')
  .description(
    'create a workspace; --read-only makes a demo workspace (its keys read and search, every write through the API is refused); --from indexes a folder into it',
  )
  .addOption(dataOption())
  .option('--read-only', 'a read-only demo workspace')
  .option('--from <paths...>', 'files and folders to index into it (in place)')
  .addOption(new Option('--pipeline <name>', 'pipeline for --from').choices([...PIPELINES]).default('arrow'))
  .option('--workers <n>', 'indexer processes for --from', (v) => Number(v))
  .action(async (name: string, opts: { data?: string; readOnly?: boolean; from?: string[]; pipeline: string; workers?: number }) => {
    if (opts.from?.length) {
      if (withStore(opts.data, (store) => store.workspaces.byName(name)))
        fail(`workspace ${name} exists already; index into it with \`media-index index --workspace ${name}\``);
      await indexPaths(opts.from, { data: opts.data, workspace: name, pipeline: opts.pipeline, workers: opts.workers, readOnly: opts.readOnly });
      if (opts.readOnly) process.stdout.write(`workspace ${name} is read-only\n`);
      return;
    }
    withStore(opts.data, (store) => {
      const { row, created } = store.workspaces.ensure(name);
      if (!created) fail(`workspace ${name} exists already`);
      if (opts.readOnly) store.workspaces.setReadOnly(row.id, true);
      process.stdout.write(`created workspace ${row.name} (${row.id})${opts.readOnly ? ', read-only' : ''}\n`);
    });
  });

workspaces
  .command('set <name>')
  .description('make a workspace read-only, or writable again')
  .addOption(dataOption())
  .addOption(new Option('--read-only', 'refuse every write through the API').conflicts('writable'))
  .option('--writable', 'accept writes again')
  .action((name: string, opts: { data?: string; readOnly?: boolean; writable?: boolean }) => {
    if (!opts.readOnly && !opts.writable) fail('say --read-only or --writable');
    withStore(opts.data, (store) => {
      const row = store.workspaces.byName(name);
      if (!row) fail(`no workspace ${name}`);
      store.workspaces.setReadOnly(row.id, Boolean(opts.readOnly));
      process.stdout.write(`workspace ${name} is ${opts.readOnly ? 'read-only' : 'writable'}\n`);
    });
  });

program
  .command('share')
  .description('share an asset read-only into another workspace')
  .addOption(dataOption())
  .requiredOption('--asset <id>', 'asset (video_id)')
  .requiredOption('--to <workspace>', 'workspace name')
  .action((opts: { data?: string; asset: string; to: string }) => {
    withStore(opts.data, (store) => {
      const svc = new AssetsService(store, new IndexOptionsService(store), new StageQueue(store), { deleted: () => {} });
      const r = svc.share(opts.asset, opts.to);
      process.stdout.write(`shared ${r.video_id} into ${r.workspace} (read only)\n`);
    });
  });

interface IndexRun {
  data?: string;
  workspace: string;
  pipeline: string;
  options?: string;
  workers?: number;
  /** Set the workspace read-only before indexing (a demo workspace seeded from a folder). */
  readOnly?: boolean;
  /** One JSON object per line (events, then a summary) instead of a progress bar. */
  json?: boolean;
}

/** A line of `--json` output. */
const jsonLine = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

/**
 * Indexes files and folders in place into a workspace (created when new), with a progress bar or
 * JSON lines. Exit code 2 when a file was refused or a stage run really failed; a stage whose
 * optional model is not installed is counted apart (skipped), not as a failure.
 */
async function indexPaths(paths: string[], opts: IndexRun): Promise<void> {
  const config = loadConfig({ dataDir: opts.data, workers: opts.workers });
  const { files, skipped } = collectFiles(paths);
  for (const s of skipped) {
    if (opts.json) jsonLine({ event: 'skipped', file: s.path, reason: s.reason });
    else process.stderr.write(`skipped ${s.path}: ${s.reason}\n`);
  }
  if (files.length === 0) fail('no supported files found');
  let core;
  try {
    core = await openCore(config, { lockInfo: 'media-index index', log: () => {} });
  } catch (err) {
    if (err instanceof DataFolderBusyError) {
      fail(`${err.message}\nIndex through the running server instead (POST /api/v1/videos), or stop it first.`);
    }
    throw err;
  }
  const ensured = core.store.workspaces.ensure(opts.workspace);
  const ws = ensured.row;
  if (ensured.created && !opts.json) process.stdout.write(`created workspace ${ws.name}\n`);
  if (opts.readOnly) core.store.workspaces.setReadOnly(ws.id, true);
  const bar = opts.json
    ? null
    : new cliProgress.SingleBar(
        { format: '{bar} {value}/{total} indexed | {stage}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 2000 },
        cliProgress.Presets.shades_classic,
      );
  const pending = new Map<string, string>(); // asset id → file
  const tally = { refused: 0, failed: 0, modelMissing: 0 };
  let added = false;
  let finish = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  core.host.on('run-finished', (e: RunFinishedEvent) => {
    const file = pending.get(e.assetId);
    if (file === undefined) return;
    if (e.state === 'failed' && e.code === 'model_not_installed') tally.modelMissing++;
    else if (e.state === 'failed') tally.failed++;
    if (opts.json) jsonLine({ event: 'stage', file, video_id: e.assetId, stage: e.stage, state: e.state, code: e.code ?? null });
    bar?.update({ stage: `${e.stage} ${e.state}` });
    if (e.assetCompleted) {
      pending.delete(e.assetId);
      if (opts.json) jsonLine({ event: 'completed', file, video_id: e.assetId });
      bar?.increment();
      if (pending.size === 0 && added) finish();
    }
  });
  bar?.start(files.length, 0, { stage: 'adding files' });
  for (const file of files) {
    try {
      const ack = await core.services.assets.ingestLocal(ws.id, file, { pipeline: opts.pipeline, options: opts.options });
      pending.set(ack.video_id, file);
      if (opts.json) jsonLine({ event: 'added', file, video_id: ack.video_id });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      tally.refused++;
      bar?.setTotal(files.length - tally.refused);
      if (opts.json) jsonLine({ event: 'refused', file, code: err.code, message: err.message });
      else process.stderr.write(`\nrefused ${file}: ${err.message}\n`);
    }
  }
  added = true;
  const paused = config.workers === 0;
  if (!paused) {
    if (pending.size > 0) await done;
    else finish();
  }
  bar?.stop();
  const accepted = files.length - tally.refused;
  const indexed = paused ? 0 : accepted;
  const exitCode = tally.refused > 0 || tally.failed > 0 ? 2 : 0;
  if (opts.json) {
    jsonLine({
      event: 'summary',
      workspace: ws.name,
      files: files.length,
      indexed,
      queued: paused ? accepted : 0,
      refused: tally.refused,
      failed_stage_runs: tally.failed,
      skipped_model_not_installed: tally.modelMissing,
      exit_code: exitCode,
    });
  } else if (paused) {
    process.stdout.write(`${accepted} file(s) queued; indexing is paused (--workers 0)\n`);
  } else {
    process.stdout.write(`${indexed} indexed into workspace ${ws.name}, ${tally.refused} refused\n`);
    if (tally.failed > 0) process.stdout.write(`failed: ${tally.failed} stage run(s) (why: GET /videos/{id}, its index report)\n`);
    if (tally.modelMissing > 0) process.stdout.write(`skipped: optional model not installed (${tally.modelMissing} stages; \`media-index models list\`)\n`);
  }
  await core.close();
  process.exitCode = exitCode;
}

program
  .command('index <paths...>')
  .description('index files and folders (recursively) in place, with a progress bar; exit code 2 when a file was refused or a stage failed')
  .addOption(dataOption())
  .option('--workspace <name>', 'workspace to index into', 'default')
  .addOption(new Option('--pipeline <name>', 'pipeline').choices([...PIPELINES]).default('arrow'))
  .option('--options <json>', 'index options for these files (SPEC 2.7)')
  .option('--workers <n>', 'indexer processes', (v) => Number(v))
  .option('--json', 'one JSON object per line: added, refused, stage, completed events, then a summary')
  .action((paths: string[], opts: IndexRun) => indexPaths(paths, opts));

const models = program.command('models').description('optional models: list, pull (download), verify, remove');

models
  .command('list')
  .description('list the optional models and whether they are installed')
  .addOption(dataOption())
  .option('--json', 'print JSON')
  .action((opts: { data?: string; json?: boolean }) => {
    const dir = modelsDir(opts.data ?? defaultDataDir());
    const list = manifest().models.map((m) => modelStatus(dir, m));
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return;
    }
    for (const m of list) {
      const state = m.installed
        ? `installed (${m.build}${m.revision ? ` @ ${m.revision.slice(0, 12)}` : ''})`
        : m.downloadable
          ? `not installed${m.pinned ? '' : " (checked against the hub's checksums)"}`
          : 'no files listed in this build';
      const size = m.size_bytes > 0 ? `${(m.size_bytes / 1e6).toFixed(0).padStart(5)} MB` : '    ? MB';
      process.stdout.write(`${m.name.padEnd(28)} ${m.stage.padEnd(11)} ${size}  ${state}  (${m.licence})\n`);
    }
    process.stdout.write(`models folder: ${dir}; execution provider: ${executionProvider()}\n`);
  });

models
  .command('pull <name>')
  .description('download a model (each file checked by the sha256 this build pins, else the one the hub publishes; an interrupted download resumes)')
  .addOption(dataOption())
  .option('--mirror <url>', "a mirror with the hub's layout (also MEDIA_INDEX_MODEL_MIRROR)")
  .action(async (name: string, opts: { data?: string; mirror?: string }) => {
    const entry = requireModel(name);
    const bar = new cliProgress.SingleBar({ format: '{bar} {percentage}% | {file}', hideCursor: true }, cliProgress.Presets.shades_classic);
    bar.start(1, 0, { file: '' });
    let receipt;
    try {
      receipt = await pullModel(opts.data ?? defaultDataDir(), entry, {
        mirror: opts.mirror,
        onProgress: (p) => {
          bar.setTotal(Math.max(1, p.total));
          bar.update(p.received, { file: p.file });
        },
      });
    } finally {
      bar.stop();
    }
    process.stdout.write(`${name} installed (${receipt.build}${receipt.revision ? `, revision ${receipt.revision}` : ''})\n`);
  });

models
  .command('import <name>')
  .description(
    'install a model from a folder or a file (no network): a pinned build is verified by checksum; another build of the same model is accepted when its interface is the one the app loads',
  )
  .addOption(dataOption())
  .requiredOption('--from <path>', 'the folder (or the single file) holding the model')
  .action(async (name: string, opts: { data?: string; from: string }) => {
    const r = await importModel(opts.data ?? defaultDataDir(), requireModel(name), opts.from, (msg) => process.stderr.write(`${msg}\n`));
    for (const f of r.files) process.stdout.write(`${f.path} <- ${f.from} (${f.verified_by})\n`);
    process.stdout.write(`${name} installed (${r.receipt.build}${r.receipt.note ? `: ${r.receipt.note}` : ''})\n`);
  });

models
  .command('verify [name]')
  .description('check installed model files against their checksums')
  .addOption(dataOption())
  .action(async (name: string | undefined, opts: { data?: string }) => {
    const dataDir = opts.data ?? defaultDataDir();
    const entries = name ? [requireModel(name)] : manifest().models.filter((m) => modelStatus(modelsDir(dataDir), m).installed);
    let bad = 0;
    for (const m of entries) {
      for (const r of await verifyModel(dataDir, m)) {
        if (!r.ok) bad++;
        process.stdout.write(`${m.name}/${r.path}: ${r.ok ? 'ok' : r.problem}\n`);
      }
    }
    if (entries.length === 0) process.stdout.write('no models installed\n');
    if (bad > 0) process.exit(1);
  });

models
  .command('remove <name>')
  .description('delete a model from the models folder')
  .addOption(dataOption())
  .action(async (name: string, opts: { data?: string }) => {
    const removed = await removeModel(opts.data ?? defaultDataDir(), requireModel(name));
    process.stdout.write(removed ? `${name} removed\n` : `${name} was not installed\n`);
  });

program
  .command('search <query>')
  .description('search the index and print ranked hits')
  .addOption(dataOption())
  .option('--workspace <name>', 'workspace to search', 'default')
  .option('--limit <n>', 'number of hits', (v) => Number(v), 10)
  .option('--rerank', 'second pass: exact phrase and query coverage')
  .option('--json', 'print the answer as one line of JSON (as POST /search answers)')
  .action(async (query: string, opts: { data?: string; workspace: string; limit: number; rerank?: boolean; json?: boolean }) => {
    await withStoreAsync(opts.data, async (store) => {
      const ws = store.workspaces.byName(opts.workspace);
      if (!ws) fail(`no workspace named ${opts.workspace}`);
      const auth = { keyId: 'cli', workspaceId: ws.id, scopes: new Set(['read' as const]), access: [], readOnly: true };
      const request = SearchRequest.parse({ query, limit: opts.limit, rerank: Boolean(opts.rerank) });
      // Printed as the API answers, with frame URLs relative to the server.
      const answer = new Presenter(new UrlSigner(opts.data ?? defaultDataDir()), '').hits(await new SearchService(store).search(auth, request));
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(answer)}\n`);
        return;
      }
      if (answer.hits.length === 0) process.stdout.write('no hits\n');
      answer.hits.forEach((h, i) => {
        const where = h.page !== null ? `page ${h.page}` : h.asset_kind === 'video' ? `at ${h.timestamp.toFixed(1)} s` : 'photo';
        const text = (h.passage?.text ?? h.snippet.text).replace(/\s+/g, ' ');
        process.stdout.write(
          `${String(i + 1).padStart(2)}. ${h.score.toFixed(3)}  ${h.file_name}  ${where}  [${h.video_id}]\n    ${text.slice(0, 160)}${text.length > 160 ? '…' : ''}\n`,
        );
      });
    });
  });

registerLibraryCommands(program, dataOption, fail);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof AppError || err instanceof ModelError) fail(err.message, 2);
  fail((err as Error)?.stack ?? String(err));
});
