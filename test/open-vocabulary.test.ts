// Open-vocabulary objects end to end: OWLv2's weights cannot be had here, so a generated stand-in
// (a 4 × 4 grid of candidate boxes, each described by its colours; a phrase by the sum of its
// tokens' rows) runs with OWLv2's real tokenizer (CLIP's) and image preprocessing. The test teaches
// "fur" what one cell of the photo of Chelsea the cat looks like, and asks for it as a caller phrase.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { installTinyOpenVocabularyDetector, seededTable, TINY_DETECTOR, writeManifest, useManifest } from './helpers/tiny-onnx.ts';
import { cocoClassFor } from '../server/indexer/stages/objects.run.ts';

const CLIP_META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova/clip-vit-base-patch32');
const MODEL = 'owlv2-base-patch16';
const CAT = corpus('scenes/skimage/chelsea.png');
const CELL = { row: 1, col: 2 };

/** What the stand-in sees in one cell: the picture padded to a square, 960 × 960, normalized, averaged in 60-pixel blocks. */
async function cellFeatures(file: string): Promise<Float32Array> {
  const { image_mean: mean, image_std: std } = JSON.parse(fs.readFileSync(path.join(CLIP_META, 'preprocessor_config.json'), 'utf8')) as {
    image_mean: number[];
    image_std: number[];
  };
  const meta = await sharp(file).metadata();
  const side = Math.max(meta.width!, meta.height!);
  const { input, cells, block } = TINY_DETECTOR;
  const square = await sharp(file)
    .removeAlpha()
    .extend({ right: side - meta.width!, bottom: side - meta.height!, background: '#000000' })
    .raw()
    .toBuffer();
  const px = await sharp(square, { raw: { width: side, height: side, channels: 3 } })
    .resize(input, input)
    .raw()
    .toBuffer();
  const sub = input / block / cells;
  const out = new Float32Array(3 * sub * sub);
  for (let c = 0; c < 3; c++) {
    for (let sy = 0; sy < sub; sy++) {
      for (let sx = 0; sx < sub; sx++) {
        let sum = 0;
        const y0 = (CELL.row * sub + sy) * block;
        const x0 = (CELL.col * sub + sx) * block;
        for (let y = y0; y < y0 + block; y++) for (let x = x0; x < x0 + block; x++) sum += (px[(y * input + x) * 3 + c] / 255 - mean[c]) / std[c];
        out[(c * sub + sy) * sub + sx] = sum / (block * block);
      }
    }
  }
  return out;
}

describe('open-vocabulary objects (OWLv2 stand-in, real tokenizer and preprocessing)', () => {
  const data = tempDir('mi-owl-');
  const scratch = tempDir('mi-owl-files-');
  let restoreManifest = () => {};
  let t: TestServer;
  let key: string;
  let early: string;

  beforeAll(async () => {
    const vocab = JSON.parse(fs.readFileSync(path.join(CLIP_META, 'vocab.json'), 'utf8')) as Record<string, number>;
    const F = TINY_DETECTOR.features;
    const table = seededTable(Object.keys(vocab).length, F, 9);
    for (const w of ['<|startoftext|>', '<|endoftext|>']) table.fill(0, vocab[w] * F, (vocab[w] + 1) * F);
    table.set(await cellFeatures(CAT), vocab['fur</w>'] * F);
    // A photo indexed before the model is installed...
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('owl');
    early = (await t.index(key, CAT, { ocr: false, faces: false, people: false, objects: { vocabulary: ['fur'] } })).video_id;
    await t.server.close();
    // ...then the model arrives and the service starts again.
    writeManifest(
      path.join(scratch, 'manifest.json'),
      MODEL,
      'objects',
      'zero-shot-object-detection',
      installTinyOpenVocabularyDetector(path.join(data, 'models'), MODEL, CLIP_META, table),
    );
    restoreManifest = useManifest(path.join(scratch, 'manifest.json'));
    await t.restart();
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    restoreManifest();
  });

  it('looks again for the phrases of photos indexed before the model arrived, on the next start', async () => {
    const d = await t.waitCompleted(key, early);
    expect(d.index.report.stages.objects).toMatchObject({ state: 'ok', counts: { open_vocabulary: 1 }, details: { open_vocabulary: MODEL } });
    expect(d.index.report.stages.objects.details.phrases_searched).toContain('fur');
  });

  it('answers COCO classes and their WordNet synonyms with the closed-set detector', () => {
    expect(cocoClassFor('cats')).toBe('cat');
    expect(cocoClassFor('automobile')).toBe('car');
    expect(cocoClassFor('sofa')).toBe('couch');
    expect(cocoClassFor('fur')).toBeNull();
    expect(cocoClassFor('red car')).toBeNull();
  });

  it('finds a caller phrase where the picture shows it, beside the closed-set objects, and makes it searchable', async () => {
    const d = await t.index(key, CAT, { ocr: false, faces: false, people: false, objects: { vocabulary: ['fur', 'automobile'], min_confidence: 0.5 } });
    const stage = d.index.report.stages.objects;
    expect(stage).toMatchObject({
      state: 'ok',
      counts: { open_vocabulary: 1 },
      details: { open_vocabulary: MODEL, provider: 'cpu', phrases_answered_by_closed_set: { automobile: 'car' } },
    });
    expect(stage.details.phrases_searched).toEqual(['logo', 'sign', 'screen', 'flag', 'chart', 'diagram', 'map', 'poster', 'helmet', 'fur']);
    const regions = (await t.api('GET', `/videos/${d.video_id}/regions?timestamp=0`, { key })).body.data;
    const objects = regions.objects as Array<{ label: string; source: string; x: number; y: number; w: number; h: number; confidence: number }>;
    expect(objects.find((o) => o.label === 'cat')).toMatchObject({ source: 'centernet-coco' });
    const fur = objects.filter((o) => o.label === 'fur');
    expect(fur).toHaveLength(1);
    // The taught cell, in the photo's own coordinates (padded square of 451 px, photo 451 × 300).
    const side = 451 / 4;
    expect(fur[0]).toMatchObject({ source: MODEL });
    expect(fur[0].x).toBeCloseTo(0.5, 2);
    expect(fur[0].w).toBeCloseTo(0.25, 2);
    expect(fur[0].y).toBeCloseTo(side / 300, 2);
    expect(fur[0].h).toBeCloseTo(side / 300, 2);
    expect(fur[0].confidence).toBeGreaterThan(0.5);
    const s = await t.api('POST', '/search', { key, json: { query: 'fur', video_id: d.video_id, search_options: { modalities: ['object'] } } });
    expect(s.body.data.hits[0]).toMatchObject({ video_id: d.video_id, region: { label: 'fur', source: MODEL } });
  });
});
