import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

function storedFiles(t: TestServer): string[] {
  const out: string[] = [];
  for (const dir of ['tmp', 'assets']) {
    const root = path.join(t.dataDir, dir);
    for (const name of fs.readdirSync(root, { recursive: true }) as string[]) out.push(path.join(dir, name));
  }
  return out;
}

/** Waits until no asset is being indexed (earlier tests' assets write their files meanwhile). */
async function idle(t: TestServer): Promise<void> {
  const deadline = Date.now() + 120_000;
  const busy = () =>
    (t.server.store.db.prepare("SELECT COUNT(*) AS n FROM assets WHERE status = 'processing' AND deleted_at IS NULL").get() as { n: number }).n;
  while (busy() > 0) {
    if (Date.now() > deadline) throw new Error('assets still processing');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assetRows(t: TestServer): number {
  return (t.server.store.db.prepare('SELECT COUNT(*) AS n FROM assets').get() as { n: number }).n;
}

describe('POST /videos and the asset lifecycle (SPEC 4.1, 4.2, 3.1)', () => {
  let t: TestServer;
  let key: string;

  beforeAll(async () => {
    t = await startTestServer();
    key = t.key('lib');
  });
  afterAll(() => t.close());

  it.each([
    ['docs/a-text.pdf', 'document', 'application/pdf'],
    ['office/example.docx', 'document', null],
    ['office/example.pptx', 'document', null],
    ['office/datasets.xlsx', 'document', null],
    ['office/a-text.odt', 'document', null],
    ['docs/project-history.en.epub', 'document', null],
    ['faces/portraits/grace_hopper_512x512.jpg', 'image', 'image/jpeg'],
    ['scenes/skimage/chelsea.png', 'image', 'image/png'],
    ['video/forensics/movie-hello.mp4', 'video', 'video/mp4'],
    ['video/opencv/vtest.avi', 'video', null],
    ['video/format-fixtures/webm.webm', 'video', 'video/webm'],
    ['video/format-fixtures/mkv.mkv', 'video', null],
    ['video/format-fixtures/mov.mov', 'video', 'video/quicktime'],
  ])('accepts %s as a %s and indexes it to completed', async (file, kind, mime) => {
    const r = await t.upload(key, corpus(file));
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    const ack = r.body.data;
    expect(ack).toMatchObject({ kind, status: 'processing', file_name: path.basename(file), pipeline: 'arrow' });
    expect(ack.video_id).toMatch(/^vid_/);
    expect(ack.index_options.ocr).toEqual({ enabled: true, fps: 0.5, languages: ['en'] });

    const detail = await t.waitCompleted(key, ack.video_id);
    expect(detail).toMatchObject({ video_id: ack.video_id, kind, status: 'completed', gen1_tier: null, engine: 'arrow' });
    if (mime) expect(detail.mime_type).toBe(mime);
    expect(detail).toHaveProperty('page_count');
    expect(detail.index.options).toEqual(ack.index_options);
    expect(detail.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(detail.size_bytes).toBe(fs.statSync(corpus(file)).size);
    const stages = detail.index.report.stages;
    expect(Object.keys(stages)).toEqual([
      'extract',
      'metadata',
      'shots',
      'speech',
      'transcript',
      'captions',
      'speakers',
      'sounds',
      'labels',
      'ocr',
      'faces',
      'objects',
      'people',
      'embeddings',
      'music',
    ]);
    expect(stages.extract).toMatchObject({ state: 'ok', counts: { bytes: detail.size_bytes } });
    for (const s of Object.values(stages) as Array<{ state: string; reason: string | null }>) {
      expect(['ok', 'off', 'not_applicable', 'failed']).toContain(s.state);
      if (s.state !== 'ok') expect(s.reason).toBeTruthy();
    }
    expect(stages.music.state).toBe('off');
    if (kind === 'video') expect(stages.objects.state).toBe('not_applicable');
    else expect(stages.transcript.state).toBe('not_applicable');
    expect(detail.index.report.progress).toEqual({ done: 15, total: 15 });
    expect(stages.shots.state).toBe(kind === 'video' ? 'ok' : 'not_applicable');
    expect(stages.metadata.state).toBe('ok');
    if (kind !== 'video') expect(stages.speech.state).toBe('not_applicable');
  });

  it('refuses the legacy binary formats .doc, .ppt and .xls with 415 unsupported_legacy_format', async () => {
    for (const f of ['office/format-fixtures/doc.doc', 'office/format-fixtures/ppt.ppt', 'office/format-fixtures/xls.xls']) {
      const r = await t.upload(key, corpus(f));
      expect(r.status, f).toBe(415);
      expect(r.body.error.code).toBe('unsupported_legacy_format');
    }
    // A legacy file renamed to the modern extension is caught by its content.
    const r = await t.upload(key, { name: 'renamed.docx', data: fs.readFileSync(corpus('office/format-fixtures/doc.doc')) });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_legacy_format');
  });

  it('refuses unknown types, content that contradicts the extension and empty files, storing nothing', async () => {
    const before = assetRows(t);
    const cases: Array<[string, Uint8Array, number, string]> = [
      ['notes.xyz', Buffer.from('hello'), 415, 'unsupported_file_type'],
      ['noext', Buffer.from('hello'), 415, 'unsupported_file_type'],
      ['cat.pdf', fs.readFileSync(corpus('scenes/skimage/chelsea.png')), 415, 'unsupported_file_type'],
      ['photo.jpg', Buffer.from('%PDF-1.4 not really'), 415, 'unsupported_file_type'],
      ['clip.mp4', fs.readFileSync(corpus('scenes/skimage/chelsea.png')), 415, 'unsupported_file_type'],
      ['binary.txt', fs.readFileSync(corpus('scenes/skimage/chelsea.png')), 415, 'unsupported_file_type'],
      ['empty.pdf', new Uint8Array(0), 422, 'empty_file'],
    ];
    for (const [name, data, status, code] of cases) {
      const r = await t.upload(key, { name, data });
      expect(r.status, name).toBe(status);
      expect(r.body.error.code, name).toBe(code);
      // Binary content under a text extension is named by the detector.
      if (name === 'binary.txt') expect(r.body.error.message).toBe("The file's content (image/png) does not match its extension .txt.");
    }
    const txt = await t.upload(key, { name: 'plain.txt', data: Buffer.from('Plain text is a document.\n') });
    expect(txt.status).toBe(201);
    // Text whose first bytes happen to spell a media signature (QuickTime's "free" at the fifth byte) is text.
    for (const [name, words] of [
      ['note.txt', 'and free software for everyone\n'],
      ['list.md', 'the moov atom, explained\n'],
    ]) {
      const r = await t.upload(key, { name, data: Buffer.from(words) });
      expect(r.status, name).toBe(201);
    }
    expect(assetRows(t)).toBe(before + 3);
    expect(fs.readdirSync(path.join(t.dataDir, 'tmp'))).toEqual([]);
  });

  it('refuses invalid options with 422 invalid_options before anything is stored', async () => {
    await idle(t);
    const before = assetRows(t);
    const filesBefore = storedFiles(t);
    const bad = [
      'not json',
      '{"ocr": {"fps": -1}}',
      '{"nonsense": true}',
      '{"objects": {"vocabulary": [' + Array.from({ length: 41 }, (_, i) => `"w${i}"`).join(',') + ']}}',
      '{"labels": {"top_k": "five"}}',
      '{"ocr": {"languages": ["xx"]}}',
      '{"speakers": {"min_speakers": 4, "max_speakers": 2}}',
      '{"faces": false}',
      '[]',
    ];
    for (const options of bad) {
      const r = await t.upload(key, corpus('docs/a-text.pdf'), { pipeline: 'arrow', options });
      expect(r.status, options).toBe(422);
      expect(r.body.error.code, options).toBe('invalid_options');
    }
    expect(assetRows(t)).toBe(before);
    expect(storedFiles(t)).toEqual(filesBefore);
  });

  it('refuses a missing file part and an unknown pipeline with 422', async () => {
    const form = new FormData();
    form.append('pipeline', 'arrow');
    const res = await fetch(`${t.url}/api/v1/videos`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const r = await t.upload(key, corpus('docs/a-text.pdf'), { pipeline: 'turbo' });
    expect(r.status).toBe(422);
  });

  it('echoes the effective options: upload over workspace over deployment', async () => {
    expect((await t.api('PUT', '/index-options', { key, json: { ocr: { fps: 2 }, labels: false } })).status).toBe(200);
    try {
      const r = await t.upload(key, corpus('video/imageio/realshort.mp4'), {
        pipeline: 'arrow',
        options: JSON.stringify({ ocr: { languages: ['en', 'hi'] }, objects: { vocabulary: ['logo'] }, music: true }),
      });
      expect(r.status).toBe(201);
      const o = r.body.data.index_options;
      expect(o.ocr).toEqual({ enabled: true, fps: 2, languages: ['en', 'hi'] });
      expect(o.labels.enabled).toBe(false);
      expect(o.objects).toMatchObject({ enabled: true, vocabulary: ['logo'], max_regions: 50 });
      const detail = await t.waitCompleted(key, r.body.data.video_id);
      expect(detail.index.options).toEqual(o);
      expect(detail.index.report.stages.music).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^unavailable/) });
    } finally {
      await t.api('PUT', '/index-options', { key, json: {} });
    }
  });

  it('accepts deprecated pipelines for videos (gen1_tier set, no index options) and runs images on arrow', async () => {
    const v = await t.upload(key, corpus('video/imageio/realshort.mp4'), { pipeline: 'lite' });
    expect(v.status).toBe(201);
    expect(v.body.data).toMatchObject({ kind: 'video', pipeline: 'lite', index_options: null });
    const detail = await t.waitCompleted(key, v.body.data.video_id);
    expect(detail).toMatchObject({ gen1_tier: 'lite', engine: 'classic', index: { options: null } });
    expect(detail.index.report.stages.faces).toMatchObject({ state: 'off', reason: 'not part of the legacy pipeline' });

    const withOptions = await t.upload(key, corpus('video/imageio/realshort.mp4'), { pipeline: 'gen1_pro', options: '{"ocr": false}' });
    expect(withOptions.status).toBe(422);
    expect(withOptions.body.error.code).toBe('invalid_options');

    const img = await t.upload(key, corpus('scenes/skimage/chelsea.png'), { pipeline: 'max' });
    expect(img.status).toBe(201);
    expect(img.body.data.pipeline).toBe('arrow');
    expect(img.body.data.index_options).not.toBeNull();
    expect((await t.waitCompleted(key, img.body.data.video_id)).gen1_tier).toBeNull();
  });

  it("keeps the uploader's file name for display only; stored names are chosen by the server", async () => {
    const r = await t.upload(key, { name: '../../etc/evil name.txt', data: Buffer.from('text') });
    expect(r.status).toBe(201);
    expect(r.body.data.file_name).toBe('evil name.txt');
    const control = await t.upload(key, { name: 'evil\u0001name.txt', data: Buffer.from('text') });
    expect(control.status).toBe(422);
    expect(control.body.error.code).toBe('invalid_request');
    const row = t.server.store.assets.byId(r.body.data.video_id)!;
    expect(row.stored_path).toBe(path.join('assets', row.id, 'original.txt'));
    expect(fs.existsSync(path.join(t.dataDir, row.stored_path))).toBe(true);
    // Read as text: its picture stages do not apply.
    const done = await t.waitCompleted(key, r.body.data.video_id);
    expect(done.index.report.stages.ocr).toMatchObject({ state: 'not_applicable', reason: 'a .txt document is read as text; its pictures are not indexed' });
    // Its faces asked for again: nothing applies, and it is complete again at once (not left processing).
    expect((await t.api('POST', `/videos/${r.body.data.video_id}/reindex`, { key, json: { stages: ['faces'] } })).status).toBe(202);
    expect((await t.api('GET', `/videos/${r.body.data.video_id}`, { key })).body.data.status).toBe('completed');
  });

  it('deletes: hidden from every list at once, purged in the background, owner only', async () => {
    const r = await t.upload(key, corpus('scenes/skimage/chelsea.png'));
    const id = r.body.data.video_id;
    await t.waitCompleted(key, id);
    const dir = path.join(t.dataDir, 'assets', id);
    expect(fs.existsSync(dir)).toBe(true);

    const del = await t.api('DELETE', `/videos/${id}`, { key });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ video_id: id, deleted: true, purging: true });
    expect((await t.api('GET', `/videos/${id}`, { key })).status).toBe(404);
    const list = await t.api('GET', '/videos?limit=200', { key });
    expect(list.body.data.map((a: { video_id: string }) => a.video_id)).not.toContain(id);
    expect((await t.api('DELETE', `/videos/${id}`, { key })).status).toBe(404);

    await t.server.purger.settled();
    for (let i = 0; i < 100 && t.server.store.assets.byId(id); i++) await new Promise((res) => setTimeout(res, 20));
    expect(t.server.store.assets.byId(id)).toBeUndefined();
    expect(t.server.store.runs.forAsset(id)).toEqual([]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('shares an asset read-only into another workspace: visible there, delete answers 403', async () => {
    const r = await t.upload(key, corpus('docs/a-text.pdf'));
    const id = r.body.data.video_id;
    const guestKey = t.key('guest');
    expect((await t.api('GET', `/videos/${id}`, { key: guestKey })).status).toBe(404);
    t.server.services.assets.share(id, 'guest');
    const seen = await t.api('GET', `/videos/${id}`, { key: guestKey });
    expect(seen.status).toBe(200);
    expect(seen.body.data.owned).toBe(false);
    const del = await t.api('DELETE', `/videos/${id}`, { key: guestKey });
    expect(del.status).toBe(403);
    expect(del.body.error.code).toBe('forbidden');
    expect((await t.api('GET', `/videos/${id}`, { key })).status).toBe(200);
  });
});

describe('upload size limit', () => {
  it('answers 413 file_too_large past the configured maximum and keeps no partial file', async () => {
    const t = await startTestServer({ maxUploadBytes: 50_000 });
    try {
      const key = t.key('x');
      const r = await t.upload(key, corpus('scenes/skimage/chelsea.png'));
      expect(r.status).toBe(413);
      expect(r.body.error.code).toBe('file_too_large');
      expect(fs.readdirSync(path.join(t.dataDir, 'tmp'))).toEqual([]);
      expect((await t.upload(key, corpus('docs/a-text.pdf'))).status).toBe(201);
    } finally {
      await t.close();
    }
  });
});
