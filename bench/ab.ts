// Photos indexed per second by two checkouts of the app, interleaved in one run: this one and a
// base revision (a git worktree of it, sharing this checkout's node_modules). Each run starts the
// service of one side cold on a new data folder (`media-index serve`, default indexer processes,
// every bundled stage), indexes two other photos (not timed), then uploads the photo set of
// bench:index through the API and times until the last photo is `completed`; the sides alternate
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

/** Uploads the files through the API and waits until each is `completed`; seconds taken. */
async function indexAll(s: Service, files: string[]): Promise<number> {
  const t0 = performance.now();
  await allCompleted(s, await uploadAll(s, files));
  return (performance.now() - t0) / 1000;
}

async function photosPerSecond(bin: string): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-ab-'));
  const s = await serve(dataDir, { bin });
  try {
    // Not timed: one photo per indexer process, so both sides start the set with their processes
    // up and their models loaded (one side may start its processes at start-up, the other at the
    // first work).
    await indexAll(s, WARM_UP);
    return PHOTOS.length / (await indexAll(s, PHOTOS));
  } finally {
    await s.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const rev = shortRev(baseArg());
const head = shortRev('HEAD');
const got: Record<'base' | 'head', number[]> = { base: [], head: [] };
await withBase(rev, async (sides) => {
  for (let i = 0; i < runs; i++) {
    const order: Array<'base' | 'head'> = i % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
    for (const side of order) {
      const v = await photosPerSecond(sides[side]);
      got[side].push(v);
      console.log(`run ${i + 1} ${side}: ${v.toFixed(3)} photos/s`);
    }
  }
});
const [b, h] = [spread(got.base, 3), spread(got.head, 3)];
writeResults('ab-photos', `Photos/s, ${PHOTOS.length} photos of bench:index, every bundled stage, ${runs} interleaved cold runs a side`, {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  base: rev,
  head,
  base_photos_per_s_median: b.median,
  base_range: b.range,
  head_photos_per_s_median: h.median,
  head_range: h.range,
  head_over_base: Math.round((h.median / b.median) * 1000) / 1000,
});
process.exit(0);
