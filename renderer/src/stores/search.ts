// The search box and its results. A search is named by its address (#/search?q=…&kind=…&from=…),
// so a link or the back button runs the search it names; results are kept per address with the
// pages loaded and the place scrolled to, so going back shows them at once where they were, and
// results of another search are never shown under this one's title. Hits come one per asset with
// their moments (`group_by: asset`), shown grouped by kind (`shownOrder`).
import { create } from 'zustand';
import { search, type SearchFilters, type SearchHit, type SearchResponse } from '../api/search.ts';
import { ApiError } from '../api/client.ts';
import type { ListFilters } from '../api/videos.ts';

/** Days the results are narrowed to (the date-range picker): YYYY-MM-DD, both included. */
export interface DayRange {
  from?: string;
  to?: string;
}

interface SearchState {
  query: string;
  /** The address the result, loading and error belong to. */
  key: string;
  result: SearchResponse | null;
  loading: boolean;
  /** A further page is being loaded. */
  more: boolean;
  error: string | null;
  /** Index (in the order shown) of the hit the keyboard is on. */
  cursor: number;
  setQuery(q: string): void;
  run(q: string, filters?: ListFilters, order?: 'relevance' | 'taken_at', range?: DayRange): Promise<void>;
  /** The next page of this search, added under the hits shown. */
  loadMore(): Promise<void>;
  setCursor(i: number): void;
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The library's chips and the date range as search filters (the same narrowing on both screens). */
export function searchFilters(f: ListFilters, range: DayRange = {}): SearchFilters | undefined {
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
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (range.from && day.test(range.from)) out.taken_after = range.from;
  if (range.to && day.test(range.to)) out.taken_before = nextDay(range.to);
  return Object.keys(out).length ? out : undefined;
}

/** Hits as the screen groups them: photos (and videos found by how they look), documents, videos; the group of the best hit first. */
export function shownOrder<H extends Pick<SearchHit, 'asset_kind' | 'modality'>>(hits: H[]): H[] {
  const groups = new Map<string, H[]>();
  for (const h of hits) {
    const g = groupOf(h);
    const list = groups.get(g);
    if (list) list.push(h);
    else groups.set(g, [h]);
  }
  return [...groups.values()].flat();
}

export function groupOf(h: Pick<SearchHit, 'asset_kind' | 'modality'>): 'photos' | 'documents' | 'videos' {
  if (h.asset_kind === 'image' || (h.asset_kind === 'video' && h.modality === 'picture')) return 'photos';
  return h.asset_kind === 'document' ? 'documents' : 'videos';
}

export const PAGE = 40;
const KEEP = 20;
const cache = new Map<string, SearchResponse>();
/** Where each kept search was scrolled to (its screen restores it). */
export const scrolled = new Map<string, number>();
let seq = 0;
let asked: { query: string; filters?: SearchFilters; order: 'relevance' | 'taken_at' } | null = null;

export const useSearch = create<SearchState>((set, get) => ({
  query: '',
  key: '',
  result: null,
  loading: false,
  more: false,
  error: null,
  cursor: 0,
  setQuery(query) {
    set({ query });
  },
  async run(q, filters = {}, order = 'relevance', range = {}) {
    const query = q.trim();
    const key = JSON.stringify([query, filters, order, range]);
    if (key === get().key && (get().result || get().loading)) return;
    if (!query) return set({ key, result: null, error: null, loading: false });
    const mine = ++seq;
    const known = cache.get(key);
    asked = { query, filters: searchFilters(filters, range), order };
    set({ key, query, result: known ?? null, loading: !known, more: false, error: null, cursor: 0 });
    if (known) return;
    try {
      const result = await search(query, { ...asked, groupBy: 'asset' }, PAGE);
      cache.set(key, result);
      if (cache.size > KEEP) {
        const old = cache.keys().next().value as string;
        cache.delete(old);
        scrolled.delete(old);
      }
      if (mine === seq) set({ result, loading: false });
    } catch (err) {
      if (mine === seq) set({ loading: false, error: err instanceof ApiError ? err.message : String(err), result: null });
    }
  },
  async loadMore() {
    const { result, key, more } = get();
    if (!result || more || !result.pagination.has_more || !asked) return;
    const mine = seq;
    set({ more: true });
    try {
      const next = await search(asked.query, { ...asked, groupBy: 'asset', offset: result.hits.length }, PAGE);
      if (mine !== seq || get().key !== key) return;
      const merged = { ...result, hits: [...result.hits, ...next.hits], pagination: { ...next.pagination, offset: 0 } };
      cache.set(key, merged);
      set({ result: merged, more: false });
    } catch (err) {
      if (mine === seq) set({ more: false, error: err instanceof ApiError ? err.message : String(err) });
    }
  },
  setCursor(cursor) {
    set({ cursor });
  },
}));
