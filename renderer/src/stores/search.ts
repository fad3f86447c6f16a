// The search box and its results. A search is named by its address (#/search?q=…&kind=…&year=…),
// so a link or the back button runs the search it names; results are kept per address, so going
// back shows them at once, and results of another search are never shown under this one's title.
import { create } from 'zustand';
import { search, type SearchFilters, type SearchResponse } from '../api/search.ts';
import { ApiError } from '../api/client.ts';
import type { ListFilters } from '../api/videos.ts';

interface SearchState {
  query: string;
  /** The address the result, loading and error belong to. */
  key: string;
  result: SearchResponse | null;
  loading: boolean;
  error: string | null;
  /** Index of the hit the keyboard is on. */
  cursor: number;
  setQuery(q: string): void;
  run(q: string, filters?: ListFilters, order?: 'relevance' | 'taken_at'): Promise<void>;
  move(delta: number): void;
}

/** The library's chips as search filters (the same narrowing on both screens). */
export function searchFilters(f: ListFilters): SearchFilters | undefined {
  const out: SearchFilters = {};
  if (f.kind) out.kinds = [f.kind as 'video' | 'image' | 'document'];
  if (f.person) out.people = [f.person];
  if (f.place) out.place = f.place;
  if (f.camera) out.camera = f.camera;
  if (f.library_id) out.library_id = f.library_id;
  if (f.collection_id) out.collection_id = f.collection_id;
  if (f.favorite === 'true') out.favorite = true;
  if (f.year && /^\d{4}$/.test(f.year)) {
    out.taken_after = `${f.year}-01-01`;
    out.taken_before = `${Number(f.year) + 1}-01-01`;
  }
  return Object.keys(out).length ? out : undefined;
}

const KEEP = 20;
const cache = new Map<string, SearchResponse>();
let seq = 0;

export const useSearch = create<SearchState>((set, get) => ({
  query: '',
  key: '',
  result: null,
  loading: false,
  error: null,
  cursor: 0,
  setQuery(query) {
    set({ query });
  },
  async run(q, filters = {}, order = 'relevance') {
    const query = q.trim();
    const key = JSON.stringify([query, filters, order]);
    if (!query) return set({ key, result: null, error: null, loading: false });
    const mine = ++seq;
    const known = cache.get(key);
    set({ key, query, result: known ?? null, loading: !known, error: null, cursor: 0 });
    if (known) return;
    try {
      const result = await search(query, { filters: searchFilters(filters), order });
      cache.set(key, result);
      if (cache.size > KEEP) cache.delete(cache.keys().next().value as string);
      if (mine === seq) set({ result, loading: false });
    } catch (err) {
      if (mine === seq) set({ loading: false, error: err instanceof ApiError ? err.message : String(err), result: null });
    }
  },
  move(delta) {
    const n = get().result?.hits.length ?? 0;
    if (n) set({ cursor: Math.max(0, Math.min(n - 1, get().cursor + delta)) });
  },
}));
