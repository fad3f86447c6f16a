// Indexer processes under the desktop shell: Electron utility processes running the same worker
// entry as the headless child processes, behind the same WorkerLauncher interface. The host
// restarts one that dies, with backoff. The execution provider choice travels in the environment.
import { utilityProcess } from 'electron';
import type { WorkerChannel, WorkerLauncher, WorkerMessage } from '../server/indexer/protocol.ts';
import { WORKER_ENTRY, WORKER_EXEC_ARGV, indexerEnv } from '../server/indexer/launcher.ts';

export function utilityLauncher(opts: { device?: string } = {}): WorkerLauncher {
  return (): WorkerChannel => {
    const env = indexerEnv() as Record<string, string>;
    if (opts.device) env.MEDIA_INDEX_DEVICE = opts.device;
    const child = utilityProcess.fork(WORKER_ENTRY, [], {
      serviceName: 'Media Index indexer',
      execArgv: WORKER_EXEC_ARGV,
      env,
      stdio: 'inherit',
    });
    let alive = true;
    child.on('exit', () => (alive = false));
    return {
      get pid() {
        return child.pid;
      },
      send: (msg) => {
        if (alive) child.postMessage(msg);
      },
      onMessage: (fn) => child.on('message', (m: unknown) => fn(m as WorkerMessage)),
      onExit: (fn) => child.on('exit', (code: number) => fn(code)),
      kill: () => {
        child.kill();
      },
    };
  };
}
