// The search box and its results.
import { create } from 'zustand';
import { search, type SearchResponse } from '../api/search.ts';
import { ApiError } from '../api/client.ts';

interface SearchState {
  query: string;
  result: SearchResponse | null;
  loading: boolean;
  error: string | null;
  /** Index of the hit the keyboard is on. */
  cursor: number;
  setQuery(q: string): void;
  run(q: string): Promise<void>;
  move(delta: number): void;
}

let seq = 0;

export const useSearch = create<SearchState>((set, get) => ({
  query: '',
  result: null,
  loading: false,
  error: null,
  cursor: 0,
  setQuery(query) {
    set({ query });
  },
  async run(q) {
    const query = q.trim();
    if (!query) return set({ result: null, error: null });
    const mine = ++seq;
    set({ loading: true, error: null, query });
    try {
      const result = await search(query);
      if (mine === seq) set({ result, loading: false, cursor: 0 });
    } catch (err) {
      if (mine === seq) set({ loading: false, error: err instanceof ApiError ? err.message : String(err), result: null });
    }
  },
  move(delta) {
    const n = get().result?.hits.length ?? 0;
    if (n) set({ cursor: Math.max(0, Math.min(n - 1, get().cursor + delta)) });
  },
}));
