// The library: the workspace's assets, uploads in flight with their progress, and live indexing
// progress of assets still processing (polled while any is).
import { create } from 'zustand';
import { deleteAsset, getAsset, listAssets, uploadAsset, type AssetListItem } from '../api/videos.ts';
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

interface LibraryState {
  assets: AssetListItem[];
  total: number;
  loaded: boolean;
  /** Indexing progress of processing assets: stages done / all. */
  progress: Record<string, { done: number; total: number }>;
  uploads: Upload[];
  load(): Promise<void>;
  upload(files: File[]): Promise<void>;
  /** Desktop only: native picker; the files are indexed where they are, not copied. */
  pick(what: 'files' | 'folder'): Promise<void>;
  remove(id: string): Promise<void>;
  clearFinishedUploads(): void;
}

const PARALLEL_UPLOADS = 2;
let nextKey = 1;
let poller: ReturnType<typeof setTimeout> | null = null;

export const useLibrary = create<LibraryState>((set, get) => {
  const patchUpload = (key: number, patch: Partial<Upload>) => set({ uploads: get().uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)) });

  const poll = async () => {
    poller = null;
    const processing = get().assets.filter((a) => a.status === 'processing');
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
    assets: [],
    total: 0,
    loaded: false,
    progress: {},
    uploads: [],
    async load() {
      const r = await attempt('Loading the library', () => listAssets(200, 0));
      if (!r) return;
      set({ assets: r.items, total: r.pagination.total, loaded: true });
      if (r.items.some((a) => a.status === 'processing')) schedule();
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
      set({ assets: get().assets.filter((a) => a.video_id !== id), total: get().total - 1 });
      useToasts.getState().push('info', 'Deleted.');
    },
    clearFinishedUploads() {
      set({ uploads: get().uploads.filter((u) => u.state === 'uploading' || u.state === 'waiting') });
    },
  };
});
