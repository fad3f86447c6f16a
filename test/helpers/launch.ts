// Real indexer processes whose runs a test sees, or holds back, on their way to the process.
import { forkLauncher } from '../../server/indexer/launcher.ts';
import type { RunRequest, RunsRequest, WarmRequest, WorkerLauncher, WorkerMessage } from '../../server/indexer/protocol.ts';

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

/**
 * Real indexer processes whose answers to `stage`'s runs are held back (the runs stay under way,
 * their progress told) until `release()`.
 */
export function holdingEnds(stage: string): { launch: WorkerLauncher; held: () => number; release: () => void } {
  const held: Array<() => void> = [];
  const jobs = new Set<number>();
  let holding = true;
  const launch: WorkerLauncher = () => {
    const channel = forkLauncher();
    return {
      pid: channel.pid,
      onExit: (fn) => channel.onExit(fn),
      kill: () => channel.kill(),
      send: (msg) => {
        if (msg.type === 'run' && msg.stage === stage) jobs.add(msg.jobId);
        channel.send(msg);
      },
      onMessage: (fn) =>
        channel.onMessage((m: WorkerMessage) => {
          if (holding && m.type === 'done' && jobs.has(m.jobId)) held.push(() => fn(m));
          else fn(m);
        }),
    };
  };
  return {
    launch,
    held: () => held.length,
    release: () => {
      holding = false;
      for (const go of held.splice(0)) go();
    },
  };
}
