import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STAGE_NAMES } from '../../server/contract/stages.ts';

describe('GET/PUT /index-options (SPEC 2.8, 4.4)', () => {
  let t: TestServer;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await startTestServer({ workers: 0 });
    key = t.key('one');
    otherKey = t.key('two');
  });
  afterAll(() => t.close());

  it('lists every stage with description, default, availability and described values', async () => {
    const r = await t.api('GET', '/index-options', { key });
    expect(r.status).toBe(200);
    const { stages, workspace, effective } = r.body.data;
    expect(stages.map((s: { name: string }) => s.name)).toEqual([...STAGE_NAMES]);
    const byName = Object.fromEntries(stages.map((s: { name: string }) => [s.name, s]));
    expect(byName.music).toMatchObject({ default: false, available: false });
    expect(byName.ocr).toMatchObject({ default: true });
    expect(byName.ocr.values.fps).toMatchObject({ type: 'number', default: 0.5 });
    expect(byName.ocr.values.languages).toMatchObject({ type: 'array', default: ['en'] });
    expect(byName.labels.values).toMatchObject({ min_confidence: { default: 0.5 }, top_k: { default: 5 } });
    expect(byName.objects.values.vocabulary).toMatchObject({ maxItems: 40 });
    expect(byName.faces.values).toMatchObject({ fps: { default: 1 }, min_face_px: { default: 32 } });
    expect(byName.sounds.values.min_confidence.default).toBe(0.25);
    for (const s of stages) {
      expect(typeof s.description).toBe('string');
      expect(typeof s.available).toBe('boolean');
      if (!s.available) expect(s.availability_reason).toBeTruthy();
    }
    expect(workspace).toEqual({});
    expect(effective.music).toEqual({ enabled: false });
    expect(effective.objects).toEqual({ enabled: true, min_confidence: 0.45, max_regions: 50, vocabulary: [] });
  });

  it('sets workspace defaults, which apply to uploads of that workspace only, and {} clears them', async () => {
    const put = await t.api('PUT', '/index-options', { key, json: { faces: { min_face_px: 64 }, captions: false } });
    expect(put.status).toBe(200);
    expect(put.body.data.workspace).toEqual({ faces: { min_face_px: 64 }, captions: false });
    expect(put.body.data.effective.faces).toEqual({ enabled: true, fps: 1, min_face_px: 64 });
    expect(put.body.data.effective.captions.enabled).toBe(false);

    const mine = await t.upload(key, corpus('scenes/skimage/chelsea.png'));
    expect(mine.body.data.index_options.faces.min_face_px).toBe(64);
    // Upload beats workspace.
    const over = await t.upload(key, corpus('scenes/skimage/chelsea.png'), { pipeline: 'arrow', options: '{"captions": true, "faces": {"fps": 2}}' });
    expect(over.body.data.index_options.captions.enabled).toBe(true);
    expect(over.body.data.index_options.faces).toEqual({ enabled: true, fps: 2, min_face_px: 64 });

    const theirs = await t.upload(otherKey, corpus('scenes/skimage/chelsea.png'));
    expect(theirs.body.data.index_options.faces.min_face_px).toBe(32);
    expect((await t.api('GET', '/index-options', { key: otherKey })).body.data.workspace).toEqual({});

    const cleared = await t.api('PUT', '/index-options', { key, json: {} });
    expect(cleared.body.data.workspace).toEqual({});
    expect(cleared.body.data.effective.faces.min_face_px).toBe(32);
  });

  it('refuses invalid workspace options with 422 invalid_options and keeps the old ones', async () => {
    await t.api('PUT', '/index-options', { key, json: { ocr: { fps: 1 } } });
    for (const body of [{ ocr: { fps: 'fast' } }, { bogus: true }, { people: true, faces: false }, [], 'x', null]) {
      const r = await t.api('PUT', '/index-options', { key, json: body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('invalid_options');
    }
    expect((await t.api('GET', '/index-options', { key })).body.data.workspace).toEqual({ ocr: { fps: 1 } });
    await t.api('PUT', '/index-options', { key, json: {} });
  });

  it('lets a workspace turn faces off together with people', async () => {
    const r = await t.api('PUT', '/index-options', { key, json: { faces: false, people: false } });
    expect(r.status).toBe(200);
    const up = await t.upload(key, corpus('scenes/skimage/chelsea.png'));
    expect(up.body.data.index_options.faces.enabled).toBe(false);
    await t.api('PUT', '/index-options', { key, json: {} });
  });
});

describe('GET /engines (SPEC 2.9)', () => {
  it('lists arrow as current and classic as deprecated, with the workspace default', async () => {
    const t = await startTestServer({ workers: 0 });
    try {
      const fresh = t.key('fresh');
      const r = await t.api('GET', '/engines', { key: fresh });
      expect(r.status).toBe(200);
      const engines = Object.fromEntries(r.body.data.engines.map((e: { name: string }) => [e.name, e]));
      expect(engines.arrow).toEqual({ name: 'arrow', status: 'current', is_default: true });
      expect(engines.classic).toEqual({ name: 'classic', status: 'deprecated', is_default: false });
      expect(r.body.data.default).toBe('arrow');

      // A library started on a legacy tier keeps classic as its default engine.
      const legacy = t.key('legacy');
      expect((await t.upload(legacy, corpus('video/imageio/realshort.mp4'), { pipeline: 'gen1_lite' })).status).toBe(201);
      await t.upload(legacy, corpus('video/imageio/realshort.mp4'));
      const l = await t.api('GET', '/engines', { key: legacy });
      expect(l.body.data.default).toBe('classic');
      expect(l.body.data.engines.find((e: { name: string }) => e.name === 'classic').is_default).toBe(true);
    } finally {
      await t.close();
    }
  });
});
