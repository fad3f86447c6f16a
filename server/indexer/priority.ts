// Indexer processes run below normal priority, as a desktop indexer should (Recoll's and Spotlight's
// do): where they want the same core as the process that hands out their work and records it (the
// service, or `index`), or as the app and the user's other programs, those go first. On two cores
// three processes share them, and the one recording the outcomes was preempted by the indexer
// processes it was about to give work to: measured through `index`, interleaved runs a side
// (docs/performance.md, "Indexer processes below normal priority").
import os from 'node:os';

/** Node's "below normal" (nice 10 on Linux and macOS, BELOW_NORMAL_PRIORITY_CLASS on Windows). */
export const INDEXER_PRIORITY = os.constants.priority.PRIORITY_BELOW_NORMAL;

/** Lowers a process (this one by default) to below normal priority; never raises one already lower. */
export function belowNormal(pid = 0): void {
  try {
    os.setPriority(pid, Math.max(os.getPriority(pid), INDEXER_PRIORITY));
  } catch {
    // A system that does not allow it (or a process already gone): it keeps the priority it has.
  }
}
