// The list a viewer was opened from — the timeline with its filters, a collection, search results —
// so ← and → step through it and Esc goes back to it. The list's address travels in the viewer's
// own (#/view/ID?from=…), so a reload or a link finds the list again.
import { create } from 'zustand';

export interface Step {
  id: string;
  /** The viewer's address for this step, without `from` (a page, a moment, a box). */
  hash: string;
}

interface BrowseState {
  /** The address of the list (#/library?kind=image, #/search?q=…). */
  from: string | null;
  steps: Step[];
  /** Whether the viewer was reached by a link from the list in this window (Back returns to it). */
  pushed: boolean;
  begin(from: string, steps: Step[]): void;
  /** The list of a reloaded viewer, found again from its `from`. */
  restore(from: string, steps: Step[]): void;
}

export const useBrowse = create<BrowseState>((set) => ({
  from: null,
  steps: [],
  pushed: false,
  begin(from, steps) {
    set({ from, steps, pushed: true });
  },
  restore(from, steps) {
    set({ from, steps, pushed: false });
  },
}));

/** The viewer's address for a step of a list. */
export const stepHash = (step: Step, from: string) => `${step.hash}${step.hash.includes('?') ? '&' : '?'}from=${encodeURIComponent(from)}`;

/** Where a step sits in its list: by its address first (a search's hits of one asset), else by its asset. */
export function stepIndex(steps: Step[], id: string, hash: string): number {
  const bare = hash.replace(/[?&]from=[^&]*/, '');
  const exact = steps.findIndex((s) => s.hash === bare);
  return exact >= 0 ? exact : steps.findIndex((s) => s.id === id);
}
