// The viewer: one asset at one moment — a document page with its passages and regions, a photo
// with its boxes, a video moment's keyframe with the boxes of that moment — and the box a search
// hit pointed at.
import { create } from 'zustand';
import {
  getAsset,
  getPage,
  getRegionsAt,
  getTranscript,
  type AssetDetail,
  type Box,
  type PageView,
  type RegionsView,
  type TranscriptView,
} from '../api/videos.ts';
import { ApiError } from '../api/client.ts';

export type { Box };

interface ViewerState {
  asset: AssetDetail | null;
  page: PageView | null;
  moment: RegionsView | null;
  /** A video's transcript with speakers (loaded once per video). */
  transcript: TranscriptView | null;
  highlight: Box | null;
  loading: boolean;
  error: string | null;
  open(id: string, at: { page: number | null; timestamp: number; box: Box | null }): Promise<void>;
}

export function parseBox(s: string | null): Box | null {
  const v = (s ?? '').split(',').map(Number);
  return v.length === 4 && v.every((n) => Number.isFinite(n) && n >= 0 && n <= 1) ? { x: v[0], y: v[1], w: v[2], h: v[3] } : null;
}

export const useViewer = create<ViewerState>((set, get) => ({
  asset: null,
  page: null,
  moment: null,
  transcript: null,
  highlight: null,
  loading: false,
  error: null,
  async open(id, at) {
    set({ loading: true, error: null, highlight: at.box });
    try {
      const asset = get().asset?.video_id === id && get().asset?.status === 'completed' ? (get().asset as AssetDetail) : await getAsset(id);
      if (asset.kind === 'document') {
        const page = await getPage(id, Math.max(1, Math.min(at.page ?? 1, asset.page_count ?? 1)));
        set({ asset, page, moment: null, loading: false });
      } else {
        const moment = await getRegionsAt(id, asset.kind === 'image' ? 0 : at.timestamp);
        const known = get().transcript;
        const transcript = asset.kind !== 'video' ? null : known?.video_id === id ? known : await getTranscript(id);
        set({ asset, page: null, moment, transcript, loading: false });
      }
    } catch (err) {
      set({ loading: false, error: err instanceof ApiError ? err.message : String(err) });
    }
  },
}));
