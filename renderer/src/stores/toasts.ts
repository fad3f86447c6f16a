// Short messages at the corner: errors of actions, confirmations.
import { create } from 'zustand';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
  /** A button on the toast (Undo); the toast goes when it is pressed. */
  action?: { label: string; run(): void };
}

interface ToastsState {
  items: Toast[];
  push(kind: Toast['kind'], text: string, opts?: { action?: Toast['action']; ms?: number }): void;
  dismiss(id: number): void;
}

let next = 1;
/** Toasts on screen at once: a new one pushes out the oldest. */
export const MAX_TOASTS = 3;

export const useToasts = create<ToastsState>((set, get) => ({
  items: [],
  push(kind, text, opts = {}) {
    const id = next++;
    set({ items: [...get().items.slice(-(MAX_TOASTS - 1)), { id, kind, text, ...(opts.action ? { action: opts.action } : {}) }] });
    setTimeout(() => get().dismiss(id), opts.ms ?? (kind === 'error' ? 8000 : 4000));
  },
  dismiss(id) {
    set({ items: get().items.filter((t) => t.id !== id) });
  },
}));

/** Runs an action and shows its failure as a toast. */
export async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    useToasts.getState().push('error', `${what}: ${(err as Error).message}`);
    return undefined;
  }
}
