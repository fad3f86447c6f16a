// Entry of an indexer process: runs one stage at a time for the host and answers with its outcome.
// Holds no database handle for writing: the host records every outcome.
import fs from 'node:fs';
import { scratchDirOf } from '../store/files.ts';
import { isStageName, runStage, warmStage } from './runners.ts';
import type { RunRequest, RunsRequest, WarmRequest, WorkerMessage } from './protocol.ts';
import { failed, type StageOutcome } from './stage.ts';
import { throttledProgress } from './progress.ts';
import { closeExiftool } from '../media/raw.ts';
import { env } from '../config.ts';
import { belowNormal } from './priority.ts';

// pdf.js inflates a PDF's streams through the runtime's DecompressionStream where there is one: a
// web stream per content stream, inflated on libuv's thread pool and handed back through rounds of
// promises; without it, pdf.js inflates in place with its own decoder. Measured on the text PDFs of
// bench:recoll (six 83-page books and a page, two indexer processes): 2.67 → 2.38 s from launch to
// done, median of 3. Nothing else in an indexer process uses DecompressionStream (file-type, which
// does, sniffs uploads and scanned files in the service); the global is the process's own.
delete (globalThis as { DecompressionStream?: unknown }).DecompressionStream;

// Below normal priority, whoever started the process (server/indexer/priority.ts).
belowNormal();

/** Under the desktop shell the process is an Electron utility process, which talks over parentPort. */
interface ParentPort {
  on(event: 'message', fn: (e: { data: RunRequest | RunsRequest | WarmRequest }) => void): void;
  postMessage(msg: WorkerMessage): void;
}
const parentPort = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;

function send(msg: WorkerMessage): void {
  if (parentPort) parentPort.postMessage(msg);
  // The service may have stopped while this process started: nobody to tell, and 'disconnect' ends
  // it (a channel closed between the look and the write ends it too, without an uncaught error).
  else if (process.connected) process.send?.(msg, undefined, undefined, (err: Error | null) => err && stop());
}

/** A disk that filled up, however the stage met it (a write, or a tool that said so). */
const NO_SPACE = /ENOSPC|no space left on device|SQLITE_FULL|database or disk is full/i;

/**
 * The stages' scratch files (frames sampled from a video, a decoded BMP, tesseract's language
 * folder) go under the data folder's scratch/, not the system's temporary folder: what a process
 * killed mid-run leaves there is cleared at the next start (FileStore.sweep), never left in /tmp.
 */
function scratchIn(dataDir: string): void {
  const tmp = scratchDirOf(dataDir);
  if (process.env.TMPDIR === tmp) return;
  fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  // os.tmpdir() reads TMPDIR, and TEMP / TMP on Windows.
  process.env.TMPDIR = process.env.TEMP = process.env.TMP = tmp;
}

async function handle(req: RunRequest): Promise<StageOutcome> {
  if (!isStageName(req.stage)) return failed('unknown_stage', req.stage);
  scratchIn(req.dataDir);
  let outcome: StageOutcome;
  try {
    const ctx = {
      asset: req.asset,
      options: req.options,
      dataDir: req.dataDir,
      assetDir: req.assetDir,
      input: req.input,
      progress: throttledProgress((p) => send({ type: 'progress', jobId: req.jobId, ...p }), env.progressEveryMs),
    };
    outcome = await runStage(req.stage, ctx);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    outcome = failed('error', message.slice(0, 500));
  }
  // Runs again by itself once there is room (services/space-watch.service.ts).
  if (outcome.state === 'failed' && (outcome.code === 'no_space' || NO_SPACE.test(outcome.reason))) {
    return failed('no_space', `the disk holding the data folder is full; this stage runs again by itself once there is room (${outcome.reason.slice(0, 300)})`);
  }
  return outcome;
}

function onRequest(msg: RunRequest | RunsRequest | WarmRequest): void {
  if (msg?.type === 'runs') {
    for (const run of msg.runs) onRequest(run);
    return;
  }
  if (msg?.type === 'warm') {
    for (const stage of msg.stages) if (isStageName(stage)) void warmStage(stage);
    return;
  }
  if (msg?.type !== 'run') return;
  void handle(msg).then((outcome) => send({ type: 'done', jobId: msg.jobId, outcome, rss: process.memoryUsage.rss() }));
}
if (parentPort) parentPort.on('message', (e) => onRequest(e.data));
else process.on('message', onRequest);
/** Ends what the process started (the exiftool of RAW files), then the process; at most 3 s. */
function stop(): void {
  setTimeout(() => process.exit(0), 3000).unref();
  void closeExiftool()
    .catch(() => undefined)
    .then(() => process.exit(0));
}
process.on('disconnect', stop);
process.on('SIGTERM', stop);
// A service that stopped while this process started has closed the channel already: end now.
if (!parentPort && process.send && !process.connected) stop();
else send({ type: 'ready' });
