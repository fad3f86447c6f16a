// What indexing is doing (the top bar's indicator): polled while anything is indexing, and now and
// then while nothing is (a watched folder's new file, a script's upload start work this window did
// not ask for), not while the window is hidden.
// Its panel lists what failed and why, with a retry, and pauses or resumes the indexing.
import { create } from 'zustand';
import { getActivity, pauseIndexing, retryFailed, type Activity } from '../api/collections.ts';
import { attempt, useToasts } from './toasts.ts';
import { counted } from '../plural.ts';

interface ActivityState {
  activity: Activity | null;
  /** When the look that gave `activity` was asked for (ms since the epoch): what happened after, it cannot know. */
  askedAt: number;
  /**
   * Starts polling, or looks soon where only an idle look was planned (a file added, a page
   * listed something processing or a file not indexed that the last look did not know); it stops
   * once nothing is left. `shown`: the library shows something processing, which the first look may find done
   * already (nothing before it to compare with): that look reloads the library.
   */
  watch(shown?: boolean): void;
  refresh(): Promise<void>;
  pause(paused: boolean): Promise<void>;
  retry(): Promise<void>;
}

const POLL_MS = 1500;
const PAUSED_POLL_MS = 5000;
/** Nothing indexing: a look this often, and at once when the window is shown again. */
const IDLE_POLL_MS = 10_000;
let timer: ReturnType<typeof setTimeout> | null = null;
/** When the next look is due (ms since the epoch). */
let dueAt = 0;
const lookIn = (ms: number, look: () => void) => {
  timer = setTimeout(look, ms);
  dueAt = Date.now() + ms;
};
/**
 * Called when something finished indexing: the library reloads what it shows (its months, layout
 * and first page): at most every NOTICE_MS while indexing goes on, and at once when it ends.
 */
let onFinished: (() => void) | null = null;
const NOTICE_MS = 5000;
let noticed = 0;
let owed = false;
/** The library showed something processing since the last look (see `watch`). */
let shownSinceLook = false;
export const whenIndexed = (fn: () => void) => (onFinished = fn);

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) useActivity.getState().watch();
});

export const useActivity = create<ActivityState>((set, get) => ({
  activity: null,
  askedAt: 0,
  watch(shown = false) {
    if (shown) shownSinceLook = true;
    // A look soon, sooner than an idle one already planned.
    if (timer && dueAt <= Date.now() + 300) return;
    if (timer) clearTimeout(timer);
    lookIn(300, () => void get().refresh());
  },
  async refresh() {
    if (timer) clearTimeout(timer); // asked for directly (a pause): one chain of looks, not two
    timer = null;
    const before = get().activity;
    const askedAt = Date.now();
    const activity = await getActivity().catch(() => null);
    if (!activity) return;
    set({ activity, askedAt });
    // More done than at the last look; or this is the first look and the library shows something
    // processing that may have finished before it (a small photo indexed within the 300 ms).
    if (before ? activity.assets.done > before.assets.done : shownSinceLook) owed = true;
    shownSinceLook = false;
    if (owed && (activity.assets.processing === 0 || Date.now() - noticed >= NOTICE_MS)) {
      owed = false;
      noticed = Date.now();
      onFinished?.();
    }
    // Paused, it is still asked now and then: indexing may be resumed elsewhere (another window, a
    // script); idle too, less often, and not while hidden (shown again, it looks at once).
    if (timer || document.hidden) return;
    const wait = activity.assets.processing === 0 ? IDLE_POLL_MS : activity.paused ? PAUSED_POLL_MS : POLL_MS;
    lookIn(wait, () => void get().refresh());
  },
  async pause(paused) {
    if (await attempt(paused ? 'Pausing' : 'Resuming', () => pauseIndexing(paused))) await get().refresh();
  },
  async retry() {
    const r = await attempt('Retrying', () => retryFailed());
    if (r) useToasts.getState().push('info', r.requeued ? `Indexing ${counted(r.requeued, 'file')} again.` : 'Nothing to retry.');
    get().watch();
  },
}));
