// The indexer processes' memory budget (indexer/memory.ts), through the real server and real indexer
// processes: under a budget that holds each model once, the runs that read text all go to one
// process and those that look for faces and objects to the other; with room for every copy, both
// processes read text (as they did before there was a budget, so the first test fails without it).
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkerLauncher } from '../server/indexer/protocol.ts';
import { launcherThrough } from './helpers/launch.ts';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';

const PHOTOS = [
  'faces/portraits/grace_hopper_512x512.jpg',
  'faces/portraits/astronaut.png',
  'scenes/skimage/coffee.png',
  'scenes/skimage/chelsea.png',
  'scenes/skimage/motorcycle_left.png',
  'scenes/skimage/rocket.jpg',
  'faces/portraits/O0.jpg',
  'faces/portraits/O1.jpg',
];

/** Real indexer processes; notes which process each run was sent to. */
function recording(): { launch: WorkerLauncher; sent: Array<{ pid: number; stage: string }> } {
  const sent: Array<{ pid: number; stage: string }> = [];
  const launch = launcherThrough((msg, pid, go) => {
    for (const run of msg.type === 'runs' ? msg.runs : msg.type === 'run' ? [msg] : []) sent.push({ pid, stage: run.stage });
    go();
  });
  return { launch, sent };
}

async function indexPhotos(t: TestServer): Promise<void> {
  const key = t.key('memory');
  const ids: string[] = [];
  for (const p of PHOTOS) {
    const r = await t.upload(key, corpus(p), { pipeline: 'arrow', options: JSON.stringify({ ocr: true, faces: true, objects: true }) });
    expect(r.status).toBe(201);
    ids.push(r.body.data.video_id);
  }
  for (const id of ids) {
    const d = await t.waitCompleted(key, id, 240_000);
    for (const stage of ['ocr', 'faces', 'objects']) expect(d.index.report.stages[stage].state, stage).toBe('ok');
  }
}

const processesOf = (sent: Array<{ pid: number; stage: string }>, stages: string[]) => new Set(sent.filter((s) => stages.includes(s.stage)).map((s) => s.pid));

describe('the indexer processes’ memory budget', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('keeps each model in one process when the budget holds it once, and both processes busy', async () => {
    const rec = recording();
    t = await startTestServer({ workers: 2, indexerMemoryMiB: 850 }, tempDir(), rec.launch);
    await indexPhotos(t);
    const text = processesOf(rec.sent, ['ocr']);
    const vision = processesOf(rec.sent, ['faces', 'objects']);
    expect(text.size, JSON.stringify(rec.sent)).toBe(1);
    expect(vision.size, JSON.stringify(rec.sent)).toBe(1);
    expect([...text][0]).not.toBe([...vision][0]);
    expect(rec.sent.filter((s) => s.stage === 'ocr')).toHaveLength(PHOTOS.length);
  }, 300_000);

  it('lets both processes read text where the budget holds every copy', async () => {
    const rec = recording();
    t = await startTestServer({ workers: 2, indexerMemoryMiB: 100_000 }, tempDir(), rec.launch);
    await indexPhotos(t);
    expect(processesOf(rec.sent, ['ocr']).size, JSON.stringify(rec.sent)).toBe(2);
  }, 300_000);
});
