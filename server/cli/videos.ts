// `media-index index` and `share`: files indexed in place into a workspace, with a progress bar or
// JSON lines; an asset shared read-only into another workspace.
import path from 'node:path';
import cliProgress from 'cli-progress';
import { Option, type Command } from 'commander';
import { loadConfig } from '../config.ts';
import { openCore } from '../server.ts';
import { DataFolderBusyError } from '../store/lock.ts';
import { EXTENSION_KINDS, PIPELINES } from '../contract/assets.ts';
import { reasonWithoutCode } from '../contract/stages.ts';
import type { RunFinishedEvent, RunProgressEvent } from '../indexer/host.ts';
import { collectFiles } from '../media/collect.ts';
import { admitInGroups } from './admit.ts';
import { dataOption, fail, jsonLine, withServices } from './shared.ts';
import { counted, progressText } from './counted.ts';

export interface IndexRun {
  data?: string;
  workspace: string;
  pipeline: string;
  options?: string;
  workers?: number;
  /** Set the workspace read-only before indexing (a demo workspace seeded from a folder). */
  readOnly?: boolean;
  /** One JSON object per line (events, then a summary) instead of a progress bar. */
  json?: boolean;
  /** `all` (default): every stage; `searchable`: return once every file is searchable, the rest left queued. */
  wait?: 'all' | 'searchable';
}

/**
 * Indexes files and folders in place into a workspace (created when new), with a progress bar or
 * JSON lines: "searchable" once every file's text and metadata are read (phase 1), then the rest
 * (phase 2) unless `--wait searchable`. Exit code 2 when a file was refused or a stage run really
 * failed; a stage whose optional model is not installed is counted apart (skipped), not as a failure.
 */
export async function indexPaths(paths: string[], opts: IndexRun): Promise<void> {
  const config = loadConfig({ dataDir: opts.data, workers: opts.workers });
  const { files, sizes, skipped } = collectFiles(paths);
  for (const s of skipped) {
    if (opts.json) jsonLine({ event: 'skipped', file: s.path, reason: s.reason });
    else process.stderr.write(`skipped ${s.path}: ${s.reason}\n`);
  }
  if (files.length === 0) fail('no supported files found');
  let core;
  try {
    core = await openCore(config, { lockInfo: 'media-index index', log: () => {}, libraries: false });
  } catch (err) {
    if (err instanceof DataFolderBusyError) {
      fail(`${err.message}\nIndex through the running server instead (POST /api/v1/videos), or stop it first.`);
    }
    throw err;
  }
  // Work is coming: the indexer processes start now and load the first stages' code (and PDFium
  // where there are documents) while the files are added.
  const documents = files.some((f) => EXTENSION_KINDS[path.extname(f).toLowerCase()] === 'document');
  core.host.prestart(documents ? ['extract', 'metadata'] : ['metadata']);
  const ensured = core.services.workspaces.ensure(opts.workspace, { readOnly: opts.readOnly });
  const ws = ensured.row;
  if (ensured.created && !opts.json) process.stdout.write(`created workspace ${ws.name}\n`);
  // Two bars: files made searchable (phase 1: their text and metadata), then files enriched (phase 2).
  const newBar = (format: string) =>
    opts.json ? null : new cliProgress.SingleBar({ format, hideCursor: true, noTTYOutput: true, notTTYSchedule: 2000 }, cliProgress.Presets.shades_classic);
  let bar = newBar('{bar} {value}/{total} searchable | {stage}');
  const pending = new Map<string, string>(); // asset id → file
  const admittedFiles: Array<[string, string]> = []; // every file taken in, with its asset id
  const reading = new Set<string>(); // asset ids whose phase 1 has not ended
  const tally = { refused: 0, failed: 0 };
  const failedFiles = new Map<string, string>(); // asset id → file, for those with a failed run
  const started = performance.now();
  let added = false;
  let searchableAt: number | null = null;
  let finish = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  let allSearchable = () => {};
  const searchable = new Promise<void>((resolve) => (allSearchable = resolve));
  const phaseOneEnded = () => {
    if (searchableAt !== null || reading.size > 0 || !added) return;
    searchableAt = performance.now();
    const seconds = Math.round(searchableAt - started) / 1000;
    const accepted = files.length - tally.refused;
    if (opts.json) jsonLine({ event: 'all_searchable', files: accepted, seconds });
    else if (accepted > 0) {
      bar?.stop();
      process.stdout.write(`searchable: ${counted(accepted, 'file')} in ${seconds} s\n`);
      if (opts.wait !== 'searchable' && pending.size > 0) {
        bar = newBar('{bar} {value}/{total} enriched | {stage}');
        bar?.start(accepted, accepted - pending.size, { stage: 'pictures, faces, text in pictures…' });
      }
    }
    allSearchable();
  };
  core.host.on('run-finished', (e: RunFinishedEvent) => {
    const file = pending.get(e.assetId);
    if (file === undefined) return;
    // A run waiting for its model is not a failure (the summary counts those apart, from the store:
    // most are settled as the file is taken in, without an event).
    if (e.state === 'failed' && e.code !== 'model_not_installed') {
      tally.failed++;
      failedFiles.set(e.assetId, file);
    }
    if (opts.json) jsonLine({ event: 'stage', file, video_id: e.assetId, stage: e.stage, state: e.state, code: e.code ?? null });
    // A stage whose optional model is not installed is skipped, not failed (the summary counts it apart).
    bar?.update({ stage: e.code === 'model_not_installed' ? `${e.stage} skipped (no model)` : `${e.stage} ${e.state}` });
    if ((e.searchable || e.assetCompleted) && reading.delete(e.assetId)) {
      if (opts.json) jsonLine({ event: 'searchable', file, video_id: e.assetId });
      bar?.increment();
      phaseOneEnded();
    }
    if (e.assetCompleted) {
      pending.delete(e.assetId);
      if (opts.json) jsonLine({ event: 'completed', file, video_id: e.assetId });
      if (searchableAt !== null) bar?.increment();
      if (pending.size === 0 && added) finish();
    }
  });
  // How far a long run has got (a document's pages read, a video's seconds looked at).
  core.host.on('run-progress', (e: RunProgressEvent) => {
    const file = pending.get(e.assetId);
    if (file === undefined) return;
    if (opts.json) jsonLine({ event: 'progress', file, video_id: e.assetId, stage: e.stage, done: e.done, total: e.total, unit: e.unit });
    bar?.update({ stage: `${e.stage} ${path.basename(file)}: ${progressText(e)}` });
  });
  bar?.start(files.length, 0, { stage: 'adding files' });
  const admit = async (group: string[]): Promise<void> => {
    const results = await core.services.assets.ingestLocalMany(ws.id, group, { pipeline: opts.pipeline, options: opts.options });
    for (const [i, result] of results.entries()) {
      const file = group[i];
      if ('ack' in result) {
        admittedFiles.push([result.ack.video_id, file]);
        pending.set(result.ack.video_id, file);
        reading.add(result.ack.video_id);
        if (opts.json) jsonLine({ event: 'added', file, video_id: result.ack.video_id });
      } else {
        tally.refused++;
        bar?.setTotal(files.length - tally.refused);
        if (opts.json) jsonLine({ event: 'refused', file, code: result.error.code, message: result.error.message });
        else process.stderr.write(`\nrefused ${file}: ${result.error.message}\n`);
      }
    }
  };
  await admitInGroups(files, sizes, admit);
  added = true;
  const paused = config.workers === 0;
  if (!paused) {
    phaseOneEnded();
    if (opts.wait === 'searchable') await searchable;
    else if (pending.size > 0) await done;
    else finish();
  }
  bar?.stop();
  const accepted = files.length - tally.refused;
  const indexed = paused ? 0 : accepted - pending.size;
  const enrichingLeft = paused ? 0 : pending.size;
  const exitCode = tally.refused > 0 || tally.failed > 0 ? 2 : 0;
  // Read, but only in part (a copy cut short): not a failure, said apart.
  const inPart = paused ? new Map<string, string>() : core.store.runs.readInPart(admittedFiles.map(([id]) => id));
  const modelMissing = core.store.runs.waitingForModelsOf(admittedFiles.map(([id]) => id));
  if (opts.json) {
    jsonLine({
      event: 'summary',
      workspace: ws.name,
      files: files.length,
      indexed,
      queued: paused ? accepted : 0,
      searchable: paused ? 0 : accepted - reading.size,
      searchable_s: searchableAt === null ? null : Math.round(searchableAt - started) / 1000,
      enriching_left: enrichingLeft,
      refused: tally.refused,
      failed_stage_runs: tally.failed,
      read_in_part: inPart.size,
      failed_files: failedFiles.size,
      skipped_model_not_installed: modelMissing,
      exit_code: exitCode,
    });
  } else if (paused) {
    process.stdout.write(`${counted(accepted, 'file')} queued; indexing is paused (--workers 0)\n`);
  } else {
    // A file whose indexing failed is counted below, not as indexed.
    const failedDone = [...failedFiles.keys()].filter((id) => !pending.has(id)).length;
    process.stdout.write(`${indexed - failedDone} indexed into workspace ${ws.name}, ${tally.refused} refused\n`);
    if (enrichingLeft > 0) {
      process.stdout.write(
        `${counted(enrichingLeft, 'file')} searchable and still to enrich: the rest runs when \`media-index serve\` or the next \`index\` starts\n`,
      );
    }
    if (failedFiles.size > 0) process.stdout.write(notIndexed(core, failedFiles));
    if (inPart.size > 0) {
      const files = new Map(admittedFiles);
      const lines = [`read in part: ${counted(inPart.size, 'file')}`];
      for (const [id, why] of [...inPart].slice(0, FAILED_FILES_SHOWN)) lines.push(`  ${files.get(id) ?? id} — ${why}`);
      if (inPart.size > FAILED_FILES_SHOWN) lines.push(`  and ${inPart.size - FAILED_FILES_SHOWN} more`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    if (modelMissing > 0) process.stdout.write(`skipped: optional model not installed (${counted(modelMissing, 'stage run')}; \`media-index models list\`)\n`);
  }
  await core.close();
  process.exitCode = exitCode;
}

/** Files shown, at most, in the summary of what was not indexed. */
const FAILED_FILES_SHOWN = 20;

/** What was not indexed, a line a file: the stages that failed and why, and how many could not run after them. */
function notIndexed(core: Awaited<ReturnType<typeof openCore>>, failed: Map<string, string>): string {
  const lines = [`not indexed: ${counted(failed.size, 'file')}`];
  const shown = [...failed].slice(0, FAILED_FILES_SHOWN);
  const failures = core.store.runs.failures(shown.map(([assetId]) => assetId));
  for (const [assetId, file] of shown) {
    const { causes, not_run } = failures.get(assetId)!;
    const why = causes.map(({ stage, code, reason }) => `${stage}: ${reasonWithoutCode(code, reason) ?? code ?? 'failed'}`);
    const after = not_run.length ? ` (so ${counted(not_run.length, 'later stage')} did not run)` : '';
    lines.push(`  ${file} — ${why.join('; ') || 'failed'}${after}`);
  }
  if (failed.size > FAILED_FILES_SHOWN)
    lines.push(`  and ${failed.size - FAILED_FILES_SHOWN} more (--json lists every failed stage; GET /videos/{id} gives each file's report)`);
  return `${lines.join('\n')}\n`;
}

export function registerVideos(program: Command): void {
  program
    .command('share')
    .description('share an asset read-only into another workspace')
    .addOption(dataOption())
    .requiredOption('--asset <id>', 'asset (video_id)')
    .requiredOption('--to <workspace>', 'workspace name')
    .action((opts: { data?: string; asset: string; to: string }) => {
      return withServices(opts.data, (s) => {
        const r = s.assets.share(opts.asset, opts.to);
        process.stdout.write(`shared ${r.video_id} into ${r.workspace} (read only)\n`);
      });
    });

  program
    .command('index <paths...>')
    .description('index files and folders (recursively) in place, with a progress bar; exit code 2 when a file was refused or a stage failed')
    .addOption(dataOption())
    .option('--workspace <name>', 'workspace to index into', 'default')
    .addOption(new Option('--pipeline <name>', 'pipeline').choices([...PIPELINES]).default('arrow'))
    .option('--options <json>', 'index options for these files (SPEC 2.7)')
    .option('--workers <n>', 'indexer processes', (v) => Number(v))
    .addOption(
      new Option(
        '--wait <what>',
        'all: wait for every stage; searchable: return once every file is searchable by its text and metadata (the rest resumes at the next serve or index)',
      )
        .choices(['all', 'searchable'])
        .default('all'),
    )
    .option('--json', 'one JSON object per line: added, refused, stage, searchable, all_searchable, completed events, then a summary')
    .action((paths: string[], opts: IndexRun) => indexPaths(paths, opts));
}
