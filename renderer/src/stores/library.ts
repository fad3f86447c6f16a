// The library: every asset of the workspace as a timeline (newest taken first, grouped by month),
// narrowed by filter chips kept in the address (#/library?kind=image&year=2019…), loaded a page
// at a time as it scrolls into view; uploads in flight; live indexing progress of what is visible.
import { create } from 'zustand';
import {
  deleteAsset,
  getAsset,
  getFacets,
  getMonths,
  listTimeline,
  uploadAsset,
  type AssetListItem,
  type Facets,
  type ListFilters,
  type Months,
} from '../api/videos.ts';
import { attempt, useToasts } from './toasts.ts';

export interface Upload {
  key: number;
  name: string;
  size: number;
  progress: number;
  state: 'waiting' | 'uploading' | 'done' | 'failed';
  error: string | null;
  videoId: string | null;
}

/** Assets fetched per request (the API's largest page). */
export const PAGE = 200;

interface LibraryState {
  filters: ListFilters;
  months: Months | null;
  facets: Facets | null;
  total: number;
  loaded: boolean;
  /** Pages of the timeline by index (offset / PAGE), as loaded. */
  pages: Record<number, AssetListItem[]>;
  /** Changes whenever the list starts over (filters, a reload): views key their caches by it. */
  generation: number;
  /** Indexing progress of processing assets: stages done / all. */
  progress: Record<string, { done: number; total: number }>;
  uploads: Upload[];
  /** Reloads the timeline with these filters (from the address). */
  show(filters: ListFilters): Promise<void>;
  load(): Promise<void>;
  /** What the chips offer (loaded once; again on each reload of the list). */
  loadFacets(): Promise<void>;
  /** Makes sure the assets at these offsets are loaded. */
  want(from: number, to: number): void;
  upload(files: File[]): Promise<void>;
  /** Desktop only: native picker; the files are indexed where they are, not copied. */
  pick(what: 'files' | 'folder'): Promise<void>;
  remove(id: string): Promise<void>;
  clearFinishedUploads(): void;
}

const PARALLEL_UPLOADS = 2;
let nextKey = 1;
let poller: ReturnType<typeof setTimeout> | null = null;
const inFlight = new Set<string>();

export const useLibrary = create<LibraryState>((set, get) => {
  const patchUpload = (key: number, patch: Partial<Upload>) => set({ uploads: get().uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)) });

  const loadPage = async (n: number) => {
    const { generation, filters, loaded } = get();
    // Before the months are known the list is not laid out: nothing to fetch yet.
    if (!loaded) return;
    const tag = `${generation}:${n}`;
    if (inFlight.has(tag) || get().pages[n]) return;
    inFlight.add(tag);
    try {
      const r = await listTimeline(filters, PAGE, n * PAGE).catch(() => null);
      if (!r || get().generation !== generation) return;
      set({ pages: { ...get().pages, [n]: r.items }, total: r.pagination.total });
      if (r.items.some((a) => a.status === 'processing')) schedule();
    } finally {
      inFlight.delete(tag);
    }
  };

  let facetsInFlight: Promise<void> | null = null;
  const refreshFacets = () =>
    (facetsInFlight ??= getFacets()
      .then((facets) => set({ facets }))
      .catch(() => undefined)
      .finally(() => (facetsInFlight = null)));

  const poll = async () => {
    poller = null;
    const processing = Object.values(get().pages)
      .flat()
      .filter((a) => a.status === 'processing');
    if (processing.length === 0) return;
    const progress = { ...get().progress };
    let finished = false;
    for (const a of processing.slice(0, 20)) {
      const d = await getAsset(a.video_id).catch(() => null);
      if (!d) continue;
      progress[a.video_id] = d.index.report.progress;
      if (d.status === 'completed') finished = true;
    }
    set({ progress });
    if (finished) await get().load();
    else schedule();
  };
  const schedule = () => {
    if (!poller) poller = setTimeout(() => void poll(), 1000);
  };

  return {
    filters: {},
    months: null,
    facets: null,
    total: 0,
    loaded: false,
    pages: {},
    generation: 0,
    progress: {},
    uploads: [],
    async show(filters) {
      set({ filters });
      await get().load();
    },
    async load() {
      const { filters } = get();
      // The timeline waits for nothing but its months; the chips' counts are asked for after them
      // (the service answers one request at a time: asked first, they would delay the timeline).
      const months = await attempt('Loading the library', () => getMonths(filters));
      if (!months) return;
      set({ months, total: months.total, pages: {}, generation: get().generation + 1, loaded: true });
      await loadPage(0);
      void refreshFacets();
    },
    async loadFacets() {
      if (!get().facets) await refreshFacets();
    },
    want(from, to) {
      for (let n = Math.floor(Math.max(0, from) / PAGE); n <= Math.floor(Math.max(0, to) / PAGE); n++) void loadPage(n);
    },
    async upload(files) {
      const added: Upload[] = files.map((f) => ({ key: nextKey++, name: f.name, size: f.size, progress: 0, state: 'waiting', error: null, videoId: null }));
      set({ uploads: [...get().uploads, ...added] });
      const queue = added.map((u, i) => ({ u, f: files[i] }));
      const worker = async () => {
        for (let job = queue.shift(); job; job = queue.shift()) {
          const { u, f } = job;
          patchUpload(u.key, { state: 'uploading' });
          try {
            const ack = await uploadAsset(f, (p) => patchUpload(u.key, { progress: p }));
            patchUpload(u.key, { state: 'done', progress: 1, videoId: ack.video_id });
            await get().load();
          } catch (err) {
            patchUpload(u.key, { state: 'failed', error: (err as Error).message });
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, worker));
      const failed = get().uploads.filter((u) => added.some((a) => a.key === u.key) && u.state === 'failed').length;
      if (failed) useToasts.getState().push('error', `${failed} of ${added.length} file(s) were not accepted; see the list.`);
    },
    async pick(what) {
      const bridge = window.mediaIndex;
      if (!bridge) return;
      const r = await attempt('Adding', () => (what === 'files' ? bridge.pickFiles() : bridge.pickFolder()));
      if (!r) return;
      if (r.accepted.length) useToasts.getState().push('info', `${r.accepted.length} file(s) added; indexing in place.`);
      for (const x of r.refused.slice(0, 5)) useToasts.getState().push('error', `${x.path}: ${x.reason}`);
      await get().load();
    },
    async remove(id) {
      const ok = await attempt('Deleting', () => deleteAsset(id));
      if (!ok) return;
      useToasts.getState().push('info', 'Deleted.');
      await get().load();
    },
    clearFinishedUploads() {
      set({ uploads: get().uploads.filter((u) => u.state === 'uploading' || u.state === 'waiting') });
    },
  };
});
