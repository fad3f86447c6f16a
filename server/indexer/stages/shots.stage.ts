// shots: a video read through once, in phase 2 (run: shots.run.ts): its shot boundaries, a keyframe
// of each shot, and its sound as 16 kHz mono audio for the audio stages. Internal. `extract` has
// read the container and drawn a poster frame in phase 1, so that a video is searchable by its name
// and metadata before this decoding of every frame. Writes shots, keyframes and the audio record
// (and the video's length where its container did not say it). The same pass keeps the frames the
// picture stages still to run will look at (`sampled/`), which therefore wait for it.
import path from 'node:path';
import { MAX_SAMPLE_FPS, type VideoShots, type VideoStreams } from '../../media/types.ts';
import type { Store } from '../../store/index.ts';
import { VIDEO_PICTURE_STAGES, videoFps } from '../picture-input.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

export interface ShotsInput {
  streams: VideoStreams | null;
  /** The rates to keep frames at for the picture stages still to run on this video (theirs, up to MAX_SAMPLE_FPS), each once. */
  sample_rates: number[];
}

/** What extraction read of the video's container (so that it is not probed again), or null where it is not known. */
function streamsOf(store: Store, assetId: string): VideoStreams | null {
  const duration = store.assets.byId(assetId)?.duration_s;
  const details = store.runs.get(assetId, 'extract')?.details;
  const said = details ? (JSON.parse(details) as { audio_codec?: unknown }) : {};
  if (typeof duration !== 'number' || !(duration > 0) || !('audio_codec' in said)) return null;
  const poster = store.media.frames(assetId).find((f) => f.kind === 'frame');
  return { duration_s: duration, has_audio: said.audio_codec !== null, ...(poster ? { poster_s: poster.timestamp } : {}) };
}

/**
 * Below this many pixels a second (1280 × 720 at 24 frames a second), decoding a video costs its
 * picture stages less than writing and reading its frames: each decodes it itself (a 768 × 576
 * video at 10 frames a second: faces over 80 frames 2.0 s decoding it, 2.5 s reading them kept).
 */
const MIN_SAMPLED_PIXEL_RATE = 1280 * 720 * 24;

/** The rates the picture stages waiting on this video sample it at, where its frames are worth keeping for them. */
function sampleRates(store: Store, assetId: string): number[] {
  const asset = store.assets.byId(assetId);
  const details = store.runs.get(assetId, 'extract')?.details;
  const fps = details ? Number((JSON.parse(details) as { fps?: unknown }).fps) : 0;
  if (!asset?.width || !asset.height || !(asset.width * asset.height * fps >= MIN_SAMPLED_PIXEL_RATE)) return [];
  const options = asset.index_options;
  const rates = VIDEO_PICTURE_STAGES.filter((stage) => store.runs.get(assetId, stage)?.state === 'pending')
    .map((stage) => videoFps(stage, stage === 'ocr' || stage === 'faces' ? { fps: options?.[stage]?.fps } : {}))
    .filter((fps) => fps <= MAX_SAMPLE_FPS);
  return [...new Set(rates)].sort((a, b) => a - b);
}

export const shotsStage = defineStage<ShotsInput, VideoShots, 'shots'>({
  name: 'shots',
  version: 1,
  kinds: ['video'],
  dependsOn: ['extract'],
  model: null,
  availability: ALWAYS_AVAILABLE,
  prepare: (store, assetId) => ({ streams: streamsOf(store, assetId), sample_rates: sampleRates(store, assetId) }),
  save(store, assetId, out) {
    const dirRel = path.relative(store.files.root, store.files.assetDir(assetId));
    store.media.replaceShots(assetId, dirRel, out);
    // A container that did not say its length: the length read through it (its sound's, its last cut's).
    if (out.duration_s > 0 && !store.assets.byId(assetId)?.duration_s) store.assets.setFacts(assetId, { duration_s: out.duration_s });
  },
});
