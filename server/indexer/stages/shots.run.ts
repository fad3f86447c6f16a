// shots, the run: one decoding pass over the video (media/video.ts, readShots). Nothing
// half-written: on failure the keyframes and audio it wrote go; the poster frame stays.
import fs from 'node:fs';
import path from 'node:path';
import { ExtractError, SAMPLED_DIR } from '../../media/types.ts';
import { defineRunner, failedBecause, fileMissing, ok } from '../stage.ts';
import { shotsStage } from './shots.stage.ts';

/** What the pass writes into the asset folder: keyframes `frames/k*.jpg`, `audio.wav` and the frames kept for the picture stages. */
async function removeDerived(assetDir: string): Promise<void> {
  const frames = path.join(assetDir, 'frames');
  const names = await fs.promises.readdir(frames).catch(() => [] as string[]);
  await Promise.all([
    ...names.filter((n) => /^k\d+\.jpg$/.test(n)).map((n) => fs.promises.rm(path.join(frames, n), { force: true })),
    fs.promises.rm(path.join(assetDir, 'audio.wav'), { force: true }),
    fs.promises.rm(path.join(assetDir, SAMPLED_DIR), { recursive: true, force: true }),
  ]);
}

export const runShots = defineRunner(shotsStage, async ({ asset, assetDir, input, progress }) => {
  if (!fs.existsSync(asset.filePath)) {
    return fileMissing(asset);
  }
  // Keyframes of an earlier reading (the file changed, a re-run) are not mixed with this one's.
  await removeDerived(assetDir);
  try {
    const out = await (await import('../../media/video.ts')).readShots(asset.filePath, assetDir, progress, input.streams, input.sample_rates);
    const counts: Record<string, number> = { shots: out.shots.length, frames: out.frames.length };
    if (out.audio) counts.audio_s = out.audio.duration_s;
    return ok(counts, out, out.details);
  } catch (err) {
    await removeDerived(assetDir);
    if (err instanceof ExtractError) return failedBecause(err);
    throw err;
  }
});
