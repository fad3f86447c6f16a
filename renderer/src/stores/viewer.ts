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
  /**
   * The asset shown is still being indexed: its detail (phase, stages done) asked again quietly,
   * and its moment too while it has no picture yet (a photo being read gets one).
   */
  refresh(timestamp: number): Promise<void>;
  /** Loads a neighbour's detail and first picture ahead, so stepping to it shows at once. */
  prefetch(id: string): void;
  /** The asset's own favourite and rating changed (the viewer's keys). */
  patch(change: Partial<Pick<AssetDetail, 'favorite' | 'rating' | 'orientation_set'>>): void;
  /** The transcript shown, replaced (after the owner named a voice). */
  setTranscript(transcript: TranscriptView): void;
}

/** Details and first moments of assets opened or preloaded lately (a few, for ←/→). */
const ahead = new Map<string, Promise<{ asset: AssetDetail; moment: RegionsView | null }>>();
/** A refresh of the asset shown is under way. */
let refreshing = false;
/** The latest `open`: an earlier one answered later (the owner stepped on) shows nothing. */
let opening = 0;
const AHEAD = 8;
function early(id: string) {
  let p = ahead.get(id);
  if (!p) {
    p = getAsset(id).then(async (asset) => ({ asset, moment: asset.kind === 'document' ? null : await getRegionsAt(id, 0) }));
    p.catch(() => ahead.delete(id));
    ahead.set(id, p);
    if (ahead.size > AHEAD) ahead.delete(ahead.keys().next().value as string);
  }
  return p;
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
    const mine = ++opening;
    const latest = () => mine === opening;
    set({ loading: true, error: null, highlight: at.box });
    try {
      const known = get().asset?.video_id === id && get().asset?.status === 'completed' ? (get().asset as AssetDetail) : null;
      const first = known ? null : await early(id);
      // A detail preloaded while still indexing is asked again (its report moves on).
      const asset = known ?? (first!.asset.status === 'completed' ? first!.asset : await getAsset(id));
      if (first && first.asset.status !== 'completed') ahead.delete(id);
      if (asset.kind === 'document' && asset.page_count === null && asset.index.report.stages.extract?.state === 'failed') {
        // Read and failed (a password, damage): no pages to ask for; the viewer says why.
        if (latest()) set({ asset, page: null, moment: null, transcript: null, loading: false });
      } else if (asset.kind === 'document') {
        const page = await getPage(id, Math.max(1, Math.min(at.page ?? 1, asset.page_count ?? 1)));
        if (latest()) set({ asset, page, moment: null, loading: false });
      } else {
        const t = asset.kind === 'image' ? 0 : at.timestamp;
        const moment = t === 0 && first?.moment && first.asset.status === 'completed' ? first.moment : await getRegionsAt(id, t);
        const known = get().transcript;
        const transcript = asset.kind !== 'video' ? null : known?.video_id === id ? known : await getTranscript(id);
        if (latest()) set({ asset, page: null, moment, transcript, loading: false });
      }
    } catch (err) {
      if (latest()) set({ loading: false, error: err instanceof ApiError ? err.message : String(err) });
    }
  },
  async refresh(timestamp) {
    const shown = get().asset;
    // One at a time: a service slow to answer is not asked again on top of itself.
    if (!shown || shown.status === 'completed' || refreshing) return;
    const id = shown.video_id;
    ahead.delete(id);
    refreshing = true;
    try {
      const asset = await getAsset(id).catch(() => null);
      const stale = get().moment;
      // A video's keyframes come with its `shots` run, after the poster it was shown by.
      const moved = (stage: string) => asset?.index.report.stages[stage]?.state !== shown.index.report.stages[stage]?.state;
      const moment =
        asset && asset.kind !== 'document' && (!stale?.frame_url || moved('shots'))
          ? await getRegionsAt(id, asset.kind === 'image' ? 0 : timestamp).catch(() => stale)
          : stale;
      // A transcript made (or its voices told apart) while the video is shown is read again.
      const heard = get().transcript;
      const transcript = asset?.kind === 'video' && (moved('transcript') || moved('speakers')) ? await getTranscript(id).catch(() => heard) : heard;
      if (asset && get().asset?.video_id === id) set({ asset, moment, transcript });
    } finally {
      refreshing = false;
    }
  },
  prefetch(id) {
    void early(id)
      .then(({ moment, asset }) => {
        const src = moment?.frame_url ?? asset.thumbnail_url;
        if (src) new Image().src = src;
      })
      .catch(() => undefined);
  },
  setTranscript(transcript) {
    if (get().transcript?.video_id === transcript.video_id) set({ transcript });
  },
  patch(change) {
    const asset = get().asset;
    if (asset) set({ asset: { ...asset, ...change } });
    for (const [id, p] of ahead)
      if (id === asset?.video_id)
        ahead.set(
          id,
          p.then((x) => ({ ...x, asset: { ...x.asset, ...change } })),
        );
  },
}));
