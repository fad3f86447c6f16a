// Entry of an indexer process: runs one stage at a time for the host and answers with its outcome.
// Holds no database handle for writing: the host records every outcome.
import { STAGE_ORDER } from './registry.ts';
import { runStage } from './runners.ts';
import type { RunRequest, WorkerMessage } from './protocol.ts';
import { failed, type StageOutcome } from './stage.ts';

/** Under the desktop shell the process is an Electron utility process, which talks over parentPort. */
interface ParentPort {
  on(event: 'message', fn: (e: { data: RunRequest }) => void): void;
  postMessage(msg: WorkerMessage): void;
}
const parentPort = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;

function send(msg: WorkerMessage): void {
  if (parentPort) parentPort.postMessage(msg);
  else process.send?.(msg);
}

async function handle(req: RunRequest): Promise<StageOutcome> {
  if (!STAGE_ORDER.includes(req.stage)) return failed('unknown_stage', req.stage);
  try {
    return await runStage(req.stage, { asset: req.asset, options: req.options, dataDir: req.dataDir, assetDir: req.assetDir, input: req.input });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return failed('error', message.slice(0, 500));
  }
}

function onRequest(msg: RunRequest): void {
  if (msg?.type !== 'run') return;
  void handle(msg).then((outcome) => send({ type: 'done', jobId: msg.jobId, outcome }));
}
if (parentPort) parentPort.on('message', (e) => onRequest(e.data));
else process.on('message', onRequest);
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
