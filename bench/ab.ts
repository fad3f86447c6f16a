// Photos indexed per second and video × real time of two checkouts of the app, interleaved in one
// run: this one and a base revision (a git worktree of it, sharing this checkout's node_modules).
// Each run starts the service of one side cold on a new data folder (`media-index serve`, default
// indexer processes, every bundled stage), indexes two other photos (not timed), then uploads the
// photo set of bench:index through the API and times until the last photo is `completed`, then
// bench:index's two videos (movie-hello.mp4, vtest.avi) the same way; the sides alternate
// (A B B A A B …) so drift of the machine falls on both. Reports the median and range of each side
// and the ratio of medians.
// Usage: npm run bench -- ab --base <git revision> [--runs 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baseArg, shortRev, withBase } from './base-checkout.ts';
import { arg, spread, writeResults } from './report.ts';
import { allCompleted, serve, uploadAll, type Service } from './serve.ts';
import { CORPUS, PHOTOS } from './sets.ts';

const runs = arg('runs', 3);
const WARM_UP = ['faces/portraits/grace_hopper_512x512.jpg', 'scenes/skimage/camera.png'].map((f) => path.join(CORPUS, f));

const VIDEOS = ['video/forensics/movie-hello.mp4', 'video/opencv/vtest.avi'].map((f) => path.join(CORPUS, f));

/** Uploads the files through the API and waits until each is `completed`; seconds taken, and the assets. */
async function indexAll(s: Service, files: string[]): Promise<{ seconds: number; assets: Array<{ duration_s?: number | null }> }> {
  const t0 = performance.now();
  const assets = await allCompleted<{ status: string; duration_s?: number | null }>(s, await uploadAll(s, files));
  return { seconds: (performance.now() - t0) / 1000, assets };
}

async function measure(bin: string): Promise<{ photos: number; video: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-ab-'));
  const s = await serve(dataDir, { bin });
  try {
    // Not timed: one photo per indexer process, so both sides start the set with their processes
    // up and their models loaded (one side may start its processes at start-up, the other at the
    // first work).
    await indexAll(s, WARM_UP);
    const photos = PHOTOS.length / (await indexAll(s, PHOTOS)).seconds;
    const videos = await indexAll(s, VIDEOS);
    const videoSeconds = videos.assets.reduce((n, a) => n + (a.duration_s ?? 0), 0);
    return { photos, video: videoSeconds / videos.seconds };
  } finally {
    await s.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const rev = shortRev(baseArg());
const head = shortRev('HEAD');
const got: Record<'base' | 'head', number[]> = { base: [], head: [] };
const video: Record<'base' | 'head', number[]> = { base: [], head: [] };
await withBase(rev, async (sides) => {
  for (let i = 0; i < runs; i++) {
    const order: Array<'base' | 'head'> = i % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
    for (const side of order) {
      const v = await measure(sides[side]);
      got[side].push(v.photos);
      video[side].push(v.video);
      console.log(`run ${i + 1} ${side}: ${v.photos.toFixed(3)} photos/s, video ${v.video.toFixed(2)}× real time`);
    }
  }
});
const [b, h] = [spread(got.base, 3), spread(got.head, 3)];
const [vb, vh] = [spread(video.base, 3), spread(video.head, 3)];
writeResults(
  'ab-photos',
  `Photos/s (${PHOTOS.length} photos of bench:index) and video × real time (its two videos), every bundled stage, ${runs} interleaved cold runs a side`,
  {
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
    base: rev,
    head,
    base_photos_per_s_median: b.median,
    base_range: b.range,
    head_photos_per_s_median: h.median,
    head_range: h.range,
    head_over_base: Math.round((h.median / b.median) * 1000) / 1000,
    base_video_x_realtime_median: vb.median,
    base_video_range: vb.range,
    head_video_x_realtime_median: vh.median,
    head_video_range: vh.range,
    video_head_over_base: Math.round((vh.median / vb.median) * 1000) / 1000,
  },
);
process.exit(0);
