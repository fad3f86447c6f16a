// Real indexer processes whose runs a test sees, or holds back, on their way to the process.
import { forkLauncher } from '../../server/indexer/launcher.ts';
import type { RunRequest, RunsRequest, WarmRequest, WorkerLauncher } from '../../server/indexer/protocol.ts';

/** Indexer processes as the server starts them; each message to one passes through `through` with the process id and what sends it on. */
export function launcherThrough(through: (msg: RunRequest | RunsRequest | WarmRequest, pid: number, go: () => void) => void): WorkerLauncher {
  return () => {
    const channel = forkLauncher();
    return {
      pid: channel.pid,
      onMessage: (fn) => channel.onMessage(fn),
      onExit: (fn) => channel.onExit(fn),
      kill: () => channel.kill(),
      send: (msg) => through(msg, channel.pid!, () => channel.send(msg)),
    };
  };
}
