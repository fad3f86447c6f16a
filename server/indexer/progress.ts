// How far a long run has got (a document's pages read, a video's seconds looked at), told by the
// indexer process to the host as the run goes: at most one report every so often, the first at once.
import type { RunProgress } from './stage.ts';

/** Passes on `report`s to `send` at most once every `everyMs` (the first at once); the rest are dropped. */
export function throttledProgress(send: (p: RunProgress) => void, everyMs: number, now: () => number = () => performance.now()): (p: RunProgress) => void {
  let last = -Infinity;
  return ({ done, total, unit }) => {
    const t = now();
    if (t - last < everyMs) return;
    last = t;
    send({ done, total, unit });
  };
}
