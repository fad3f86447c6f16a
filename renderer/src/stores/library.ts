// The library: every asset of the workspace as a timeline (newest taken first, grouped by month),
// narrowed by filter chips kept in the address (#/library?kind=image&year=2019…). The whole list's
// ids and shapes come at once (the layout), so the justified grid is laid out before any page of
// it loads; pages of items load as they scroll into view. Selection, the size of the pictures, the
// place scrolled to (kept per address, for coming back from the viewer), deletes with an undo
// window, favourites and ratings; uploads in flight.
import { create } from 'zustand';
import { deleteAsset, getFacets, getMonths, listByIds, uploadAsset, type AssetListItem, type Facets, type ListFilters, type Months } from '../api/videos.ts';
import { getLayout, markAssets, type Layout } from '../api/collections.ts';
import { DEFAULT_DENSITY, DENSITIES } from '../layout/justify.ts';
import { attempt, useToasts } from './toasts.ts';
import { useActivity } from './activity.ts';
import { counted } from '../plural.ts';

export interface Upload {
  key: number;
  name: string;
  size: number;
  progress: number;
  state: 'waiting' | 'uploading' | 'done' | 'failed';
  error: string | null;
  videoId: string | null;
  /** When the service took it in (ms since the epoch). */
  doneAt?: number;
}

/** Assets fetched per request (the API's largest page). */
export const PAGE = 200;
/** How long a delete can be undone before it is sent. */
export const UNDO_MS = 6000;
const DENSITY_KEY = 'media-index.library.density';

interface LibraryState {
  filters: ListFilters;
  /** The address's query the timeline shows (its filters), '' for all. */
  key: string;
  months: Months | null;
  /** Every id of the timeline in order, with its shape (width / height, 0 unknown). */
  layout: Layout | null;
  facets: Facets | null;
  total: number;
  loaded: boolean;
  /** Items by id, as their pages load: one map kept (a page adds to it), `itemsVersion` telling views it changed. */
  items: Map<string, AssetListItem>;
  itemsVersion: number;
  /** Puts items in the map (a page loaded, a mark changed). */
  putItems(list: AssetListItem[]): void;
  /** Changes whenever the list starts over (filters, a reload): views key their caches by it. */
  generation: number;
  /** Ids deleted in the undo window: off the timeline, not yet sent. */
  hidden: string[];
  selected: Set<string>;
  /** Where a Shift-range starts (the last tile clicked). */
  anchor: string | null;
  /** Index into DENSITIES. */
  density: number;
  /** The place scrolled to, per address, and the asset last opened from there (highlighted on return). */
  scroll: Record<string, number>;
  lastViewed: string | null;
  uploads: Upload[];
  show(filters: ListFilters, key: string): Promise<void>;
  load(): Promise<void>;
  loadFacets(): Promise<void>;
  /** Makes sure the assets at these offsets are loaded. */
  want(from: number, to: number): void;
  setDensity(d: number): void;
  select(ids: string[], on: boolean, anchor?: string | null): void;
  /** Shift-click: the range from the anchor to this id, selected. */
  selectRange(id: string): void;
  clearSelection(): void;
  remember(key: string, top: number): void;
  viewed(id: string | null): void;
  /** Deletes after an undo window (a toast with Undo); the library shows them gone at once. */
  remove(ids: string[]): void;
  mark(ids: string[], m: { favorite?: boolean; rating?: number | null }): Promise<void>;
  upload(files: File[]): Promise<void>;
  pick(what: 'files' | 'folder'): Promise<void>;
  clearFinishedUploads(): void;
}

const PARALLEL_UPLOADS = 2;
let nextKey = 1;
const inFlight = new Set<string>();
const loadedPages = new Set<string>();
const pendingDeletes = new Map<string, ReturnType<typeof setTimeout>>();

const savedDensity = () => {
  const v = Number(globalThis.localStorage?.getItem(DENSITY_KEY));
  return Number.isInteger(v) && v >= 0 && v < DENSITIES.length && localStorage.getItem(DENSITY_KEY) !== null ? v : DEFAULT_DENSITY;
};

export const useLibrary = create<LibraryState>((set, get) => {
  const patchUpload = (key: number, patch: Partial<Upload>) => set({ uploads: get().uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)) });

  /** Loads the items of a page of the timeline by their ids (no sort on the server: a few ms at any depth). */
  const loadPage = async (n: number) => {
    const { generation, filters, loaded, layout } = get();
    if (!loaded || !layout) return;
    const tag = `${generation}:${n}`;
    if (inFlight.has(tag) || loadedPages.has(tag)) return;
    const ids = layout.ids.slice(n * PAGE, (n + 1) * PAGE);
    if (!ids.length) return;
    inFlight.add(tag);
    try {
      const r = await listByIds(filters, ids).catch(() => null);
      if (!r || get().generation !== generation) return;
      loadedPages.add(tag);
      get().putItems(r.items);
      const activity = useActivity.getState();
      if (r.items.some((a) => a.status === 'processing')) activity.watch(true);
      else {
        // A file not indexed that the indicator does not know yet (added by a script, a watched folder): it is told soon.
        const known = new Set(activity.activity?.failed.files.map((f) => f.video_id) ?? []);
        if (r.items.some((a) => a.failed_stages.length > 0 && !known.has(a.video_id))) activity.watch();
      }
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

  /** The timeline without the ids in the undo window: the layout and its months' counts, as the server will have them. */
  const derive = (base: { months: Months; layout: Layout }, hidden: string[]): { months: Months; layout: Layout; total: number } => {
    if (!hidden.length) return { ...base, total: base.layout.total };
    const gone = new Set(hidden);
    const ids: string[] = [];
    const ratios: number[] = [];
    // The list's groups in order: the undated first, then months newest first (as the layout).
    const counts = [base.months.undated, ...base.months.months.map((m) => m.count)];
    let group = 0;
    let end = counts[0];
    base.layout.ids.forEach((id, i) => {
      while (i >= end && group < counts.length - 1) end += counts[++group];
      if (gone.has(id)) counts[group]--;
      else {
        ids.push(id);
        ratios.push(base.layout.ratios[i]);
      }
    });
    const months = {
      undated: counts[0],
      months: base.months.months.map((m, i) => ({ ...m, count: counts[i + 1] })).filter((m) => m.count > 0),
      total: ids.length,
    };
    return { months, layout: { ids, ratios, total: ids.length }, total: ids.length };
  };
  let base: { months: Months; layout: Layout } | null = null;
  /** The list starts over (pages are slices of a new layout): the pages loaded before are forgotten. */
  const nextGeneration = () => {
    loadedPages.clear();
    return get().generation + 1;
  };

  const commitDelete = async (ids: string[]) => {
    for (const id of ids) {
      clearTimeout(pendingDeletes.get(id));
      pendingDeletes.delete(id);
    }
    let failed = 0;
    for (const id of ids) await deleteAsset(id).catch(() => failed++);
    if (failed) useToasts.getState().push('error', `${failed} of ${ids.length} could not be deleted.`);
    set({ hidden: get().hidden.filter((h) => !ids.includes(h)) });
    await get().load();
  };
  // The desktop window's File menu indexed files: show them, and their progress.
  globalThis.addEventListener?.('media-index:added', () => {
    void get().load();
    useActivity.getState().watch(true);
  });
  // Leaving the page sends what waits in the undo window.
  globalThis.addEventListener?.('pagehide', () => {
    for (const id of pendingDeletes.keys()) void deleteAsset(id).catch(() => undefined);
  });

  return {
    filters: {},
    key: '',
    months: null,
    layout: null,
    facets: null,
    total: 0,
    loaded: false,
    items: new Map(),
    itemsVersion: 0,
    putItems(list) {
      const items = get().items;
      for (const a of list) items.set(a.video_id, a);
      set({ itemsVersion: get().itemsVersion + 1 });
    },
    generation: 0,
    hidden: [],
    selected: new Set(),
    anchor: null,
    density: savedDensity(),
    scroll: {},
    lastViewed: null,
    uploads: [],
    async show(filters, key) {
      const same = get().key === key && get().loaded;
      set({ filters, key });
      if (!same) set({ selected: new Set(), anchor: null, loaded: false });
      await get().load();
    },
    async load() {
      const { filters } = get();
      // The timeline waits for its months and layout only; the chips' counts are asked for after.
      const months = await attempt('Loading the library', () => getMonths(filters));
      if (!months || get().filters !== filters) return;
      const layout = await attempt('Loading the library', () => getLayout(filters));
      if (!layout || get().filters !== filters) return;
      base = { months, layout };
      set({ ...derive(base, get().hidden), generation: nextGeneration(), loaded: true });
      await loadPage(0);
      void refreshFacets();
    },
    async loadFacets() {
      if (!get().facets) await refreshFacets();
    },
    want(from, to) {
      for (let n = Math.floor(Math.max(0, from) / PAGE); n <= Math.floor(Math.max(0, to) / PAGE); n++) void loadPage(n);
    },
    setDensity(d) {
      const density = Math.max(0, Math.min(DENSITIES.length - 1, d));
      localStorage.setItem(DENSITY_KEY, String(density));
      set({ density });
    },
    select(ids, on, anchor) {
      const selected = new Set(get().selected);
      for (const id of ids) {
        if (on) selected.add(id);
        else selected.delete(id);
      }
      set({ selected, anchor: anchor === undefined ? (ids.at(-1) ?? get().anchor) : anchor });
    },
    selectRange(id) {
      const ids = get().layout?.ids ?? [];
      const a = get().anchor;
      const from = a ? ids.indexOf(a) : -1;
      const to = ids.indexOf(id);
      if (from < 0 || to < 0) return get().select([id], true, id);
      const [lo, hi] = from < to ? [from, to] : [to, from];
      get().select(ids.slice(lo, hi + 1), true, id);
    },
    clearSelection() {
      if (get().selected.size) set({ selected: new Set(), anchor: null });
    },
    remember(key, top) {
      set({ scroll: { ...get().scroll, [key]: top } });
    },
    viewed(id) {
      set({ lastViewed: id });
    },
    remove(ids) {
      if (!ids.length) return;
      const hidden = [...new Set([...get().hidden, ...ids])];
      const selected = new Set([...get().selected].filter((s) => !ids.includes(s)));
      // A new generation: pages are slices of the layout, which changed.
      set({ hidden, selected, ...(base ? derive(base, hidden) : {}), generation: nextGeneration() });
      const timer = setTimeout(() => void commitDelete(ids), UNDO_MS);
      for (const id of ids) pendingDeletes.set(id, timer);
      useToasts.getState().push('info', `Deleted ${ids.length === 1 ? '1 item' : `${ids.length} items`}.`, {
        ms: UNDO_MS,
        action: {
          label: 'Undo',
          run: () => {
            clearTimeout(timer);
            for (const id of ids) pendingDeletes.delete(id);
            const back = get().hidden.filter((h) => !ids.includes(h));
            set({ hidden: back, ...(base ? derive(base, back) : {}), generation: nextGeneration() });
          },
        },
      });
    },
    async mark(ids, m) {
      const before = ids.map((id) => get().items.get(id)).filter((a): a is AssetListItem => Boolean(a));
      get().putItems(
        before.map((a) => ({ ...a, ...(m.favorite !== undefined ? { favorite: m.favorite } : {}), ...(m.rating !== undefined ? { rating: m.rating } : {}) })),
      );
      const ok = await attempt('Saving', () => markAssets(ids, m));
      if (!ok) {
        get().putItems(before);
      }
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
            patchUpload(u.key, { state: 'done', progress: 1, videoId: ack.video_id, doneAt: Date.now() });
            useActivity.getState().watch(true);
          } catch (err) {
            patchUpload(u.key, { state: 'failed', error: (err as Error).message });
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, worker));
      await get().load();
      useActivity.getState().watch(true);
      const failed = get().uploads.filter((u) => added.some((a) => a.key === u.key) && u.state === 'failed').length;
      if (failed)
        useToasts
          .getState()
          .push('error', `${failed} of ${counted(added.length, 'file')} ${failed === 1 ? 'was' : 'were'} not accepted; see the progress panel.`);
    },
    async pick(what) {
      const bridge = window.mediaIndex;
      if (!bridge) return;
      const r = await attempt('Adding', () => (what === 'files' ? bridge.pickFiles() : bridge.pickFolder()));
      if (!r) return;
      if (r.accepted.length) useToasts.getState().push('info', `${counted(r.accepted.length, 'file')} added; indexing in place.`);
      for (const x of r.refused.slice(0, 5)) useToasts.getState().push('error', `${x.path}: ${x.reason}`);
      await get().load();
      useActivity.getState().watch(true);
    },
    clearFinishedUploads() {
      set({ uploads: get().uploads.filter((u) => u.state === 'uploading' || u.state === 'waiting') });
    },
  };
});
