// People on a harder set: the dlib-johns crops (three men, labelled) and copies the test makes of
// each — turned 25°, shrunk to a third, blurred, grey — indexed through the real faces and people
// stages and re-clustered. Pairwise precision, recall and F1 printed and asserted.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { ALLOWED_DROP, BEFORE } from './fixtures/accuracy-before.ts';

const OPTIONS = { ocr: false, objects: false, labels: false };
const TRUTH = fs
  .readFileSync(corpus('faces/dlib-johns/identities.tsv'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split('\t') as [string, string]);

const COPIES: Record<string, (file: string) => Promise<Buffer>> = {
  turned: (f) => sharp(f).rotate(25, { background: '#808080' }).jpeg({ quality: 92 }).toBuffer(),
  small: async (f) =>
    sharp(f)
      .resize(Math.round(((await sharp(f).metadata()).width ?? 150) / 3))
      .jpeg({ quality: 92 })
      .toBuffer(),
  blurred: (f) => sharp(f).blur(1.5).jpeg({ quality: 92 }).toBuffer(),
  grey: (f) => sharp(f).grayscale().jpeg({ quality: 92 }).toBuffer(),
};

/** Pairwise precision, recall and F1 over the labelled faces (a face on no person is a group of its own). */
function pairwise(personOf: Map<string, string | null>, truth: Map<string, string>) {
  const ids = [...truth.keys()];
  let [tp, fp, fn] = [0, 0, 0];
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const same = truth.get(ids[i]) === truth.get(ids[j]);
      const a = personOf.get(ids[i]);
      const together = a != null && a === personOf.get(ids[j]);
      if (together && same) tp++;
      else if (together) fp++;
      else if (same) fn++;
    }
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp / (tp + fn || 1);
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall || 1) };
}

describe('People on the dlib-johns crops with degraded copies', () => {
  let t: TestServer;
  const truth = { upright: new Map<string, string>(), all: new Map<string, string>() };

  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    const uprightKey = t.key('upright');
    const allKey = t.key('degraded');
    const uploads: Array<{ key: string; id: string; who: string; upright: boolean }> = [];
    for (const [rel, who] of TRUTH) {
      const file = corpus(rel);
      const up = await t.upload(uprightKey, file, { pipeline: 'arrow', options: JSON.stringify(OPTIONS) });
      uploads.push({ key: uprightKey, id: up.body.data.video_id, who, upright: true });
      const same = await t.upload(allKey, file, { pipeline: 'arrow', options: JSON.stringify(OPTIONS) });
      uploads.push({ key: allKey, id: same.body.data.video_id, who, upright: false });
      for (const [name, make] of Object.entries(COPIES)) {
        const r = await t.upload(
          allKey,
          { name: `${name}-${path.basename(rel)}`, data: await make(file) },
          { pipeline: 'arrow', options: JSON.stringify(OPTIONS) },
        );
        expect(r.status).toBe(201);
        uploads.push({ key: allKey, id: r.body.data.video_id, who, upright: false });
      }
    }
    for (const u of uploads) {
      await t.waitCompleted(u.key, u.id, 300_000);
      for (const f of t.server.store.faces.forAsset(u.id)) (u.upright ? truth.upright : truth.all).set(f.id, u.who);
    }
    for (const [ws, key] of [
      ['upright', uprightKey],
      ['degraded', allKey],
    ] as const) {
      expect((await t.api('POST', '/people/recluster', { key })).status).toBe(202);
      await t.server.services.people.settled(t.server.store.workspaces.byName(ws)!.id);
    }
  }, 900_000);
  afterAll(() => t?.close());

  const score = (faces: Map<string, string>) => pairwise(new Map([...faces.keys()].map((id) => [id, t.server.store.people.personOfFace(id)])), faces);

  it('groups the upright crops with pairwise F1 of at least 0.95', () => {
    const s = score(truth.upright);
    console.log(`upright (${truth.upright.size} faces): precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)} F1 ${s.f1.toFixed(3)}`);
    expect(s.f1).toBeGreaterThanOrEqual(0.95);
    expect(s.f1, 'no more than 0.01 below the F1 measured before').toBeGreaterThanOrEqual(BEFORE.peopleF1Upright - ALLOWED_DROP);
  });

  it('groups them with their turned, shrunk, blurred and grey copies with pairwise F1 of at least 0.85', () => {
    const s = score(truth.all);
    console.log(`with degraded copies (${truth.all.size} faces): precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)} F1 ${s.f1.toFixed(3)}`);
    expect(s.f1).toBeGreaterThanOrEqual(0.85);
    expect(s.f1, 'no more than 0.01 below the F1 measured before').toBeGreaterThanOrEqual(BEFORE.peopleF1Degraded - ALLOWED_DROP);
  });
});
