import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { EXTRACT_ONLY, startTestServer, type TestServer } from '../helpers/server.ts';

// Collections, the workspace's own favourites and ratings, the timeline's layout and the indexing
// activity: at the HTTP level against the real server (scopes, workspace isolation, bad ids).
describe('collections, marks, layout and index activity', () => {
  let t: TestServer;
  let key: string;
  let readKey: string;
  let otherKey: string;
  let photos: string[];
  let otherPhoto: string;
  const extractOnly = JSON.parse(EXTRACT_ONLY) as Record<string, boolean>;

  beforeAll(async () => {
    t = await startTestServer();
    key = t.key('alpha');
    readKey = t.key('alpha', ['read']);
    otherKey = t.key('beta');
    photos = [];
    for (const f of ['faces/portraits/grace_hopper_512x512.jpg', 'scenes/skimage/chelsea.png', 'scenes/skimage/coffee.png']) {
      photos.push((await t.index(key, corpus(f), extractOnly)).video_id);
    }
    otherPhoto = (await t.index(otherKey, corpus('scenes/skimage/horse.png'), extractOnly)).video_id;
  }, 120_000);
  afterAll(() => t.close());

  it('makes, lists, renames and deletes a collection; its assets stay in the library', async () => {
    const made = await t.api('POST', '/collections', { key, json: { name: '  Lisbon 2019 ', video_ids: [photos[0], photos[1], photos[0]] } });
    expect(made.status).toBe(201);
    const c = made.body.data;
    expect(c).toMatchObject({ name: 'Lisbon 2019', description: null, asset_count: 2, cover_video_id: photos[0] });
    expect(c.collection_id).toMatch(/^col_/);
    expect(c.cover_url).toMatch(/\/frames\//);
    // Thumbnails cache: immutable for the signed URL's life, an ETag answered with 304.
    const picture = await fetch(c.cover_url as string);
    expect(picture.status).toBe(200);
    expect(picture.headers.get('cache-control')).toMatch(/private, max-age=\d+, immutable/);
    const etag = picture.headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await fetch(c.cover_url as string, { headers: { 'If-None-Match': etag! } })).status).toBe(304);

    const listed = await t.api('GET', '/collections', { key: readKey });
    expect(listed.body.data.map((x: { name: string }) => x.name)).toEqual(['Lisbon 2019']);

    const renamed = await t.api('PATCH', `/collections/${c.collection_id}`, { key, json: { name: 'Lisbon', description: 'spring' } });
    expect(renamed.body.data).toMatchObject({ name: 'Lisbon', description: 'spring', asset_count: 2 });

    const inIt = await t.api('GET', `/videos?collection_id=${c.collection_id}&order=taken_at`, { key });
    expect(inIt.body.data.map((a: { video_id: string }) => a.video_id).sort()).toEqual([photos[0], photos[1]].sort());

    const gone = await t.api('DELETE', `/collections/${c.collection_id}`, { key });
    expect(gone.body.data).toEqual({ collection_id: c.collection_id, deleted: true });
    expect((await t.api('GET', `/collections/${c.collection_id}`, { key })).status).toBe(404);
    expect((await t.api('GET', `/videos/${photos[0]}`, { key })).status).toBe(200);
  });

  it('adds and removes assets in one step, counting what changed', async () => {
    const c = (await t.api('POST', '/collections', { key, json: { name: 'Cats' } })).body.data;
    expect(c.asset_count).toBe(0);
    expect(c.cover_url).toBeNull();
    const add = await t.api('POST', `/collections/${c.collection_id}/assets`, { key, json: { add: [photos[1], photos[2]] } });
    expect(add.body.data).toEqual({ collection_id: c.collection_id, added: 2, removed: 0, asset_count: 2 });
    const again = await t.api('POST', `/collections/${c.collection_id}/assets`, { key, json: { add: [photos[1]], remove: [photos[2]] } });
    expect(again.body.data).toEqual({ collection_id: c.collection_id, added: 0, removed: 1, asset_count: 1 });
    // The search filter narrows to the collection too.
    const layout = await t.api('GET', `/videos/layout?collection_id=${c.collection_id}`, { key });
    expect(layout.body.data.ids).toEqual([photos[1]]);
    const empty = await t.api('POST', `/collections/${c.collection_id}/assets`, { key, json: {} });
    expect(empty.status).toBe(422);
  });

  it("refuses ids the workspace does not see and changes nothing; another workspace's collection is 404", async () => {
    const c = (await t.api('POST', '/collections', { key, json: { name: 'Mixed' } })).body.data;
    const bad = await t.api('POST', `/collections/${c.collection_id}/assets`, { key, json: { add: [photos[0], otherPhoto] } });
    expect(bad.status).toBe(404);
    expect(bad.body.error.message).toContain(otherPhoto);
    expect((await t.api('GET', `/collections/${c.collection_id}`, { key })).body.data.asset_count).toBe(0);
    const madeWithBad = await t.api('POST', '/collections', { key, json: { name: 'Nope', video_ids: ['vid_nope'] } });
    expect(madeWithBad.status).toBe(404);
    expect((await t.api('GET', '/collections', { key })).body.data.some((x: { name: string }) => x.name === 'Nope')).toBe(false);

    for (const [method, path, json] of [
      ['GET', `/collections/${c.collection_id}`, undefined],
      ['PATCH', `/collections/${c.collection_id}`, { name: 'mine' }],
      ['DELETE', `/collections/${c.collection_id}`, undefined],
      ['POST', `/collections/${c.collection_id}/assets`, { add: [otherPhoto] }],
    ] as const) {
      const r = await t.api(method, path, { key: otherKey, json });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.api('GET', '/collections', { key: otherKey })).body.data).toEqual([]);
    expect((await t.api('GET', `/videos?collection_id=${c.collection_id}`, { key: otherKey })).status).toBe(404);
    const search = await t.api('POST', '/search', { key: otherKey, json: { query: 'cat', search_options: { filters: { collection_id: c.collection_id } } } });
    expect(search.status).toBe(404);
  });

  it('needs the write scope to change, and valid bodies', async () => {
    expect((await t.api('POST', '/collections', { key: readKey, json: { name: 'x' } })).status).toBe(403);
    expect((await t.api('POST', '/collections', { key, json: { name: '   ' } })).status).toBe(422);
    expect((await t.api('POST', '/collections', { key, json: { name: 'x', extra: 1 } })).status).toBe(422);
    const c = (await t.api('POST', '/collections', { key, json: { name: 'Scoped' } })).body.data;
    expect((await t.api('PATCH', `/collections/${c.collection_id}`, { key: readKey, json: { name: 'y' } })).status).toBe(403);
    expect((await t.api('PATCH', `/collections/${c.collection_id}`, { key, json: {} })).status).toBe(422);
    expect((await t.api('DELETE', `/collections/${c.collection_id}`, { key: readKey })).status).toBe(403);
    expect((await t.api('GET', '/collections/col_nope', { key })).status).toBe(404);
  });

  it("keeps the workspace's own favourite and rating in the index, lists and filters by them, and never writes the file", async () => {
    const before = (await t.api('GET', `/videos/${photos[0]}`, { key })).body.data;
    expect(before).toMatchObject({ favorite: false, rating: null });
    // The file as stored, byte for byte, before and after (the sha256 in the detail is the index's own record).
    const stored = t.server.store.files.abs(t.server.store.assets.byId(photos[0])!.stored_path);
    const bytes = fs.readFileSync(stored);
    const written = fs.statSync(stored).mtimeMs;
    const one = await t.api('PATCH', `/videos/${photos[0]}`, { key, json: { favorite: true, rating: 4 } });
    expect(one.body.data).toEqual({ video_ids: [photos[0]], favorite: true, rating: 4 });
    const bulk = await t.api('POST', '/videos/marks', { key, json: { video_ids: [photos[1], photos[2]], rating: 2 } });
    expect(bulk.status).toBe(200);
    const list = (await t.api('GET', '/videos?limit=200', { key })).body.data as Array<{ video_id: string; favorite: boolean; rating: number | null }>;
    const by = new Map(list.map((a) => [a.video_id, a]));
    expect(by.get(photos[0])).toMatchObject({ favorite: true, rating: 4 });
    expect(by.get(photos[1])).toMatchObject({ favorite: false, rating: 2 });
    const favs = (await t.api('GET', '/videos?favorite=true', { key })).body.data.map((a: { video_id: string }) => a.video_id);
    expect(favs).toEqual([photos[0]]);
    const rated = await t.api('POST', '/search', { key, json: { query: 'photo', search_options: { filters: { rating_min: 3 } } } });
    expect(rated.status).toBe(200);
    expect(rated.body.data.hits.every((h: { video_id: string }) => h.video_id === photos[0])).toBe(true);
    // Clearing the rating; the file on disk is unchanged.
    await t.api('PATCH', `/videos/${photos[0]}`, { key, json: { rating: null } });
    expect((await t.api('GET', `/videos/${photos[0]}`, { key })).body.data).toMatchObject({ favorite: true, rating: null, sha256: before.sha256 });
    expect(fs.readFileSync(stored).equals(bytes)).toBe(true);
    expect(fs.statSync(stored).mtimeMs).toBe(written);
    // Not another workspace's asset; not without the write scope; not an empty change.
    expect((await t.api('PATCH', `/videos/${otherPhoto}`, { key, json: { favorite: true } })).status).toBe(404);
    expect((await t.api('POST', '/videos/marks', { key, json: { video_ids: [photos[1], otherPhoto], favorite: true } })).status).toBe(404);
    expect((await t.api('GET', `/videos/${photos[1]}`, { key })).body.data.favorite).toBe(false);
    expect((await t.api('PATCH', `/videos/${photos[0]}`, { key: readKey, json: { favorite: false } })).status).toBe(403);
    expect((await t.api('PATCH', `/videos/${photos[0]}`, { key, json: {} })).status).toBe(422);
    expect((await t.api('PATCH', `/videos/${photos[0]}`, { key, json: { rating: 6 } })).status).toBe(422);
  });

  it("serves a photo's original for a 1:1 zoom", async () => {
    const d = (await t.api('GET', `/videos/${photos[1]}`, { key })).body.data;
    const r = await fetch(d.media_url as string);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await r.arrayBuffer()).equals(fs.readFileSync(corpus('scenes/skimage/chelsea.png')))).toBe(true);
  });

  it('lists a page of the laid-out timeline by its ids, in their order, only those the workspace sees', async () => {
    const order = [photos[2], photos[0], otherPhoto, photos[1]];
    const r = await t.api('GET', `/videos?ids=${order.join(',')}`, { key });
    expect(r.status).toBe(200);
    expect(r.body.data.map((a: { video_id: string }) => a.video_id)).toEqual([photos[2], photos[0], photos[1]]);
    expect(r.body.pagination.total).toBe(3);
    const tooMany = Array.from({ length: 201 }, (_, i) => `vid_${i}`).join(',');
    expect((await t.api('GET', `/videos?ids=${tooMany}`, { key })).status).toBe(422);
    expect((await t.api('GET', '/videos?ids=a,,b', { key })).status).toBe(422);
    // A parameter given without a value is refused, not read as 0.
    const empty = await t.api('GET', '/videos?offset=', { key });
    expect(empty.status).toBe(422);
    expect(empty.body.error.details[0].path).toBe('query.offset');
  });

  it('lays out the whole timeline: every id in the list order, with its shape as shown', async () => {
    const layout = (await t.api('GET', '/videos/layout', { key })).body.data;
    const listed = (await t.api('GET', '/videos?order=taken_at&limit=200', { key })).body.data as Array<{ video_id: string; width: number; height: number }>;
    expect(layout.ids).toEqual(listed.map((a) => a.video_id));
    expect(layout.total).toBe(3);
    const grace = listed.find((a) => a.video_id === photos[0])!;
    expect([grace.width, grace.height]).toEqual([512, 512]);
    expect(layout.ratios[layout.ids.indexOf(photos[0])]).toBe(1);
    const chelsea = listed.find((a) => a.video_id === photos[1])!;
    expect(layout.ratios[layout.ids.indexOf(photos[1])]).toBeCloseTo(chelsea.width / chelsea.height, 2);
  });

  it('says what indexing is doing, pauses and resumes it, and retries failed runs', async () => {
    const a = (await t.api('GET', '/index/activity', { key: readKey })).body.data;
    expect(a).toMatchObject({ paused: false, assets: { total: 3, done: 3, processing: 0 }, stages: [], running: [], failed: { count: 0, items: [] } });
    expect(a.waiting_for_models).toBe(3);
    expect((await t.api('POST', '/index/pause', { key: readKey })).status).toBe(403);
    expect((await t.api('POST', '/index/pause', { key })).body.data).toEqual({ paused: true });
    // A paused workspace's new file waits; another workspace's is indexed meanwhile.
    const waiting = (await t.upload(key, corpus('scenes/skimage/rocket.jpg'), { options: EXTRACT_ONLY })).body.data.video_id;
    await t.index(otherKey, corpus('scenes/skimage/coffee.png'), extractOnly);
    const paused = (await t.api('GET', '/index/activity', { key })).body.data;
    expect(paused).toMatchObject({ paused: true, assets: { total: 4, done: 3, processing: 1 } });
    expect(paused.stages.find((s: { stage: string }) => s.stage === 'extract')).toMatchObject({ pending: 1 });
    expect((await t.api('GET', '/index/activity', { key: otherKey })).body.data.paused).toBe(false);
    expect((await t.api('POST', '/index/resume', { key })).body.data).toEqual({ paused: false });
    await t.waitCompleted(key, waiting);

    // A failed run is listed with its reason, and runs again on retry.
    // A PNG cut short: its signature is right, its pictures are not there.
    const cut = new Uint8Array(fs.readFileSync(corpus('scenes/skimage/chelsea.png')).subarray(0, 3000));
    const broken = (await t.upload(key, { name: 'broken.png', data: cut }, { options: EXTRACT_ONLY })).body;
    if (broken.success) {
      await t.waitCompleted(key, broken.data.video_id);
      const failed = (await t.api('GET', '/index/activity', { key })).body.data.failed;
      expect(failed.count).toBeGreaterThan(0);
      const extract = failed.items.find((f: { stage: string }) => f.stage === 'extract');
      expect(extract).toMatchObject({ video_id: broken.data.video_id, file_name: 'broken.png' });
      expect(extract.reason).toBeTruthy();
      // By file: the file once, with the run that failed of itself.
      expect(failed.assets).toBe(1);
      expect(failed.files).toEqual([
        {
          video_id: broken.data.video_id,
          file_name: 'broken.png',
          finished_at: expect.any(String),
          causes: [{ stage: 'extract', code: 'corrupt', reason: expect.stringMatching(/\w/), retryable: false }],
          // What the test's options leave on after extraction (its embeddings).
          not_run: expect.not.arrayContaining(['extract']),
        },
      ]);
      const listed = (await t.api('GET', `/videos/${broken.data.video_id}`, { key })).body.data;
      expect(listed.failed_stages).toContain('extract');
      // A damaged file fails the same way however often it is tried: a retry leaves it, unless asked
      // for every failure (a limit raised since, say).
      expect(failed.retryable).toBe(0);
      const retry = await t.api('POST', '/index/retry', { key });
      expect(retry.status).toBe(202);
      expect(retry.body.data).toEqual({ requeued: 0, video_ids: [], left: 1 });
      expect((await t.api('POST', '/index/retry', { key, json: { all: 'yes' } })).status).toBe(422);
      const all = await t.api('POST', '/index/retry', { key, json: { all: true } });
      expect(all.status).toBe(202);
      expect(all.body.data).toEqual({ requeued: 1, video_ids: [broken.data.video_id], left: 0 });
      await t.waitCompleted(key, broken.data.video_id);

      // A PDF that needs a password, with every stage asked for: one file, its cause, and the
      // stages that could not run after it, counted once (not as a problem each).
      const locked = (await t.upload(key, corpus('docs/a-text-pass-peanuts.pdf'))).body.data.video_id;
      await t.waitCompleted(key, locked);
      const byFile = (await t.api('GET', '/index/activity', { key })).body.data.failed;
      expect(byFile.assets).toBe(2);
      expect(byFile.count).toBeGreaterThan(2);
      const entry = byFile.files.find((f: { video_id: string }) => f.video_id === locked);
      expect(entry.causes).toEqual([{ stage: 'extract', code: 'encrypted', reason: expect.stringContaining('password'), retryable: false }]);
      expect(entry.not_run).toEqual(expect.arrayContaining(['ocr', 'faces', 'objects', 'people']));
      expect(entry.not_run).not.toContain('extract');
      // Its pages: none to wait for (409 not_readable with why), not "not extracted yet".
      const pages = await t.api('GET', `/videos/${locked}/pages/1`, { key });
      expect(pages.status).toBe(409);
      expect(pages.body.error).toMatchObject({ code: 'not_readable', message: 'a-text-pass-peanuts.pdf has no pages: the PDF needs a password to open.' });
      // Newest first.
      expect(byFile.files.map((f: { video_id: string }) => f.video_id)).toEqual([locked, broken.data.video_id]);
      expect(byFile.retryable).toBe(0);

      // A file gone when its turn came (a drive unplugged, say) may be there at the next try: the
      // retry runs it again, and only it.
      await t.api('POST', '/index/pause', { key });
      const gone = (await t.upload(key, corpus('scenes/skimage/coins.png'), { options: EXTRACT_ONLY })).body.data.video_id;
      const original = path.join(t.dataDir, 'assets', gone, 'original.png');
      fs.renameSync(original, `${original}.away`);
      await t.api('POST', '/index/resume', { key });
      await t.waitCompleted(key, gone);
      const withGone = (await t.api('GET', '/index/activity', { key })).body.data.failed;
      expect(withGone).toMatchObject({ assets: 3, retryable: 1 });
      expect(withGone.files.find((f: { video_id: string }) => f.video_id === gone).causes).toEqual([
        { stage: 'extract', code: 'file_missing', reason: expect.any(String), retryable: true },
      ]);
      fs.renameSync(`${original}.away`, original);
      const again = await t.api('POST', '/index/retry', { key });
      expect(again.body.data).toEqual({ requeued: 1, video_ids: [gone], left: 2 });
      const back = await t.waitCompleted(key, gone);
      expect(back.failed_stages ?? []).toEqual([]);
      expect((await t.api('GET', '/index/activity', { key })).body.data.failed).toMatchObject({ assets: 2, retryable: 0 });
    } else {
      expect.fail(`a broken picture was refused at upload: ${JSON.stringify(broken)}`);
    }
  }, 60_000);
});
