// Pictures found by description and labelled zero-shot, through the real server. CLIP's text half
// cannot be had here, so a generated stand-in runs with the real CLIP tokenizer and image
// preprocessing (resize, centre crop, normalization): a picture's embedding is its colour layout,
// and the test teaches three words what they look like — "garfield" and "cat" the photo of Chelsea the
// cat, "fruit" the photo of a fruit bowl — by giving each word the features of its picture.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { installTinyClip, installTinyMiniLM, seededTable, TINY_CLIP_FEATURES, writeManifestOf, type PinnedFile, useManifest } from './helpers/tiny-onnx.ts';
import { embedPictures } from '../server/ml/clip.ts';

const SHARED = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova');
const CLIP_META = path.join(SHARED, 'clip-vit-base-patch32');
const CLIP = 'clip-vit-base-patch32';
const CAT = corpus('scenes/skimage/chelsea.png');
const FRUIT = corpus('scenes/opencv/fruits.jpg');

async function rgb(file: string) {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The text table: random rows, nothing for the prompt's filler, and the taught words. */
async function taughtTable(probeDir: string): Promise<Float32Array> {
  const vocab = JSON.parse(fs.readFileSync(path.join(CLIP_META, 'vocab.json'), 'utf8')) as Record<string, number>;
  const table = seededTable(Object.keys(vocab).length, TINY_CLIP_FEATURES, 5);
  const row = (w: string) => vocab[w] * TINY_CLIP_FEATURES;
  installTinyClip(probeDir, CLIP, CLIP_META, table);
  const [cat, fruit] = await embedPictures(probeDir, CLIP, [await rgb(CAT), await rgb(FRUIT)]);
  for (const w of ['<|startoftext|>', '<|endoftext|>', 'a</w>', 'an</w>', 'photo</w>', 'of</w>', '.</w>']) table.fill(0, row(w), row(w) + TINY_CLIP_FEATURES);
  for (const [w, v] of [
    ['garfield</w>', cat],
    ['cat</w>', cat],
    ['fruit</w>', fruit],
  ] as const)
    table.set(v.subarray(0, TINY_CLIP_FEATURES), row(w));
  return table;
}

describe('picture search and zero-shot labels (CLIP stand-in, real tokenizer and preprocessing)', () => {
  const data = tempDir('mi-pictures-');
  const scratch = tempDir('mi-pictures-files-');
  let restoreManifest = () => {};
  const manifest = path.join(scratch, 'manifest.json');
  let t: TestServer;
  let key: string;
  let cat: string;
  let fruit: string;
  let minilm: PinnedFile[];
  const only = { ocr: false, faces: false, people: false, objects: false };

  beforeAll(async () => {
    // A sentence encoder first: the photo of the cat is indexed with it alone...
    minilm = installTinyMiniLM(path.join(data, 'models'), path.join(SHARED, 'all-MiniLM-L6-v2'), seededTable(30522, 16, 3), 30522, 16);
    writeManifestOf(manifest, [{ name: 'all-MiniLM-L6-v2', stage: 'embeddings', task: 'feature-extraction', files: minilm }]);
    restoreManifest = useManifest(manifest);
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('pictures');
    cat = (await t.index(key, CAT, only)).video_id;
    await t.server.close();
    // ...then the image-text model arrives and the service starts again.
    const clip = installTinyClip(path.join(data, 'models'), CLIP, CLIP_META, await taughtTable(path.join(scratch, 'probe')));
    writeManifestOf(manifest, [
      { name: 'all-MiniLM-L6-v2', stage: 'embeddings', task: 'feature-extraction', files: minilm },
      { name: CLIP, stage: 'embeddings', task: 'zero-shot-image-classification', files: clip },
    ]);
    await t.restart();
    fruit = (await t.index(key, FRUIT, only)).video_id;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    restoreManifest();
  });

  it('embeds the pictures of assets indexed before the model arrived, on the next start', async () => {
    const d = await t.waitCompleted(key, cat);
    const stage = d.index.report.stages.embeddings;
    expect(stage).toMatchObject({ state: 'ok', counts: { vectors: 1, picture: 1 } });
    expect(stage.details.models).toEqual({ 'all-MiniLM-L6-v2': { vectors: 0, dim: null }, [CLIP]: { vectors: 1, dim: 512 } });
  });

  it('labels each picture zero-shot, saying where the labels come from', async () => {
    const labels = async (id: string) => (await t.api('GET', `/videos/${id}`, { key })).body.data.index.report.stages.labels;
    const c = await labels(cat);
    expect(c).toMatchObject({ state: 'ok', details: { model: CLIP, provider: 'cpu', labels: ['cat'] } });
    expect(c.details.source).toMatch(/^zero-shot over \d+ scene labels$/);
    expect((await labels(fruit)).details.labels).toEqual(['fruit']);
    const s = await t.api('POST', '/search', { key, json: { query: 'fruit', search_options: { modalities: ['label'] } } });
    expect(s.body.data.hits.map((h: { video_id: string }) => h.video_id)).toEqual([fruit]);
  });

  it('finds a picture by a description that no text in the library holds', async () => {
    const s = await t.api('POST', '/search', { key, json: { query: 'garfield' } });
    expect(s.status).toBe(200);
    const body = s.body.data;
    expect(body.recipe).toContain(`dense(${CLIP})`);
    expect(body.hits[0]).toMatchObject({ video_id: cat, modality: 'picture', asset_kind: 'image', evidence: [{ retriever: 'dense', modality: 'picture' }] });
    expect(body.hits[0].evidence[0].score).toBeGreaterThan(0.95);
    // The fruit bowl looks less like Garfield: it ranks below, if at all.
    const order = body.hits.map((h: { video_id: string }) => h.video_id);
    if (order.includes(fruit)) expect(order.indexOf(fruit)).toBeGreaterThan(order.indexOf(cat));
  });

  it('keeps to the modalities asked for', async () => {
    const s = await t.api('POST', '/search', { key, json: { query: 'garfield', search_options: { modalities: ['passage'] } } });
    expect(s.body.data.hits).toEqual([]);
  });
});
