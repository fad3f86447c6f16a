// POST /search as a results screen reads it: one hit per asset with its moments (`group_by: asset`),
// pages of one stable ranking (`offset`, `pagination`), facets of the result set, and dates people
// say ("christmas eve 2019") on a fixed clock, a date with words that match nothing then listing
// what was taken then. Real corpus files: Carroll's book, the cat photo, photos dated by exiftool.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { clock } from '../../server/store/ids.ts';

const NOW = Date.parse('2026-11-26T10:00:00Z');

interface Moment {
  timestamp: number;
  page: number | null;
  score: number;
  modality: string;
  snippet: { text: string; highlights: Array<[number, number]> };
  frame_url: string | null;
}
interface Hit {
  video_id: string;
  asset_kind: string;
  file_name: string;
  page: number | null;
  timestamp: number;
  score: number;
  taken_at: string | null;
  moments?: Moment[];
  moment_count?: number;
}
interface Answer {
  hits: Hit[];
  pagination: { limit: number; offset: number; total: number; has_more: boolean };
  facets: Record<'kinds' | 'years' | 'places' | 'people' | 'cameras' | 'collections', Array<{ value: string | number; count: number }>>;
  interpreted: { words: string; filters: Record<string, unknown>; phrases: string[]; order: string; set_aside?: string };
  recipe: string;
}

describe('search results: grouped, paged, with facets and dates people say', () => {
  let t: TestServer;
  let key: string;
  const ids: Record<string, string> = {};
  const dir = tempDir('mi-results-');
  const realNow = clock.now;

  const search = async (body: Record<string, unknown>): Promise<Answer> => {
    const r = await t.api('POST', '/search', { key, json: { limit: 100, ...body } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data as Answer;
  };
  const where = (h: { video_id: string; page: number | null; timestamp: number }) => `${h.video_id}@${h.page ?? h.timestamp}`;

  beforeAll(async () => {
    clock.now = () => NOW;
    t = await startTestServer({ workers: 2 });
    key = t.key('results');
    const quick = { ocr: false, objects: false, labels: false, faces: false, people: false };
    const dated: Array<[string, string, string, string[]]> = [
      [
        'eve-2019.jpg',
        'scenes/opencv/building.jpg',
        '2019:12:24 19:30:00',
        ['-GPSLatitude=48.8606', '-GPSLatitudeRef=N', '-GPSLongitude=2.3376', '-GPSLongitudeRef=E'],
      ],
      ['boxing-day-2019.jpg', 'scenes/opencv/home.jpg', '2019:12:26 11:00:00', ['-Model=EOS R5', '-Make=Canon']],
      ['summer-2018.jpg', 'scenes/opencv/leuvenA.jpg', '2018:07:14 12:00:00', []],
    ];
    for (const [name, from, when, tags] of dated) {
      const file = path.join(dir, name);
      fs.copyFileSync(corpus(from), file);
      execFileSync('exiftool', ['-q', '-overwrite_original', `-DateTimeOriginal=${when}`, ...tags, file]);
      ids[name] = (await t.index(key, file, quick)).video_id;
    }
    ids.carroll = (await t.index(key, corpus('docs/carroll-wonderland.pdf'))).video_id;
    ids.chelsea = (await t.index(key, corpus('scenes/skimage/chelsea.png'), { ocr: false, faces: false, people: false })).video_id;
  }, 300_000);
  afterAll(async () => {
    clock.now = realNow;
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('groups hits by asset, each with its moments, and keeps one hit per moment by default', async () => {
    const flat = await search({ query: 'cat' });
    const book = flat.hits.filter((h) => h.video_id === ids.carroll);
    expect(book.length).toBeGreaterThan(3);
    expect(flat.hits.every((h) => h.moments === undefined)).toBe(true);

    const grouped = await search({ query: 'cat', group_by: 'asset' });
    const assets = grouped.hits.map((h) => h.video_id);
    expect(new Set(assets).size).toBe(assets.length);
    expect(assets).toContain(ids.chelsea);
    const carroll = grouped.hits.find((h) => h.video_id === ids.carroll)!;
    // Its moments are the pages the flat list found, best first, the hit itself the best.
    expect(carroll.moment_count).toBe(book.length);
    expect(carroll.moments!.map((m) => m.page).sort((a, b) => a! - b!)).toEqual(book.map((h) => h.page).sort((a, b) => a! - b!));
    expect(carroll.moments![0]).toMatchObject({ page: carroll.page, score: carroll.score });
    const scores = carroll.moments!.map((m) => m.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const m = carroll.moments!.find((x) => x.snippet.highlights.length)!;
    expect(m.snippet.text.slice(...m.snippet.highlights[0]).toLowerCase()).toMatch(/^cats?$/);
    // Each page found has its picture (drawn on first request); a photo's moments have none of their own.
    const other = carroll.moments!.find((x) => x.page !== carroll.page)!;
    expect(other.frame_url).toMatch(new RegExp(`p${String(other.page).padStart(5, '0')}\\.jpg`));
    const drawn = await fetch(other.frame_url!);
    expect(drawn.status).toBe(200);
    expect(drawn.headers.get('content-type')).toBe('image/jpeg');
    expect(grouped.hits.find((h) => h.video_id === ids.chelsea)!.moments!.every((x) => x.frame_url === null)).toBe(true);
    // The order across assets is the order of their best moments in the flat list.
    const firstSeen = [...new Set(flat.hits.map((h) => h.video_id))];
    expect(assets).toEqual(firstSeen);
    expect(grouped.pagination).toEqual({ limit: 100, offset: 0, total: assets.length, has_more: false });
  });

  it('pages through one ranking: the pages joined are the whole list, in its order', async () => {
    for (const group_by of ['moment', 'asset'] as const) {
      const whole = await search({ query: 'cat', limit: 12, group_by });
      const pages: Hit[] = [];
      for (let offset = 0; offset < 12; offset += 4) {
        const p = await search({ query: 'cat', limit: 4, offset, group_by });
        expect(p.pagination).toMatchObject({ limit: 4, offset, total: whole.pagination.total });
        pages.push(...p.hits);
      }
      expect(pages.map(where)).toEqual(whole.hits.slice(0, 12).map(where));
      // Scores are shares of the best of the whole ranking, not of each page.
      expect(pages.map((h) => h.score)).toEqual(whole.hits.slice(0, 12).map((h) => h.score));
    }
    // A file indexed between two pages: the next page follows the ranking of the first; a new first
    // page finds it.
    const first = await search({ query: 'cat', limit: 3, group_by: 'asset' });
    const before = await search({ query: 'cat', limit: 100, group_by: 'asset' });
    const newcomer = (
      await t.index(
        key,
        { name: 'cat-on-the-sofa.png', data: fs.readFileSync(corpus('scenes/skimage/chelsea.png')) },
        { ocr: false, faces: false, people: false },
      )
    ).video_id;
    const second = await search({ query: 'cat', limit: 3, offset: 3, group_by: 'asset' });
    expect([...first.hits, ...second.hits].map(where)).toEqual(before.hits.slice(0, 6).map(where));
    expect(second.pagination.total).toBe(first.pagination.total);
    const fresh = await search({ query: 'cat', limit: 100, group_by: 'asset' });
    expect(fresh.hits.map((h) => h.video_id)).toContain(newcomer);
    expect(fresh.pagination.total).toBe(first.pagination.total + 1);
    // An asset deleted between two pages is not shown on the next.
    const again = await search({ query: 'cat', limit: 1, group_by: 'asset' });
    const gone = fresh.hits[1].video_id;
    expect((await t.api('DELETE', `/videos/${gone}`, { key })).status).toBe(200);
    const after = await search({ query: 'cat', limit: 1, offset: 1, group_by: 'asset' });
    expect(again.hits[0].video_id).toBe(fresh.hits[0].video_id);
    expect(after.hits.map((h) => h.video_id)).not.toContain(gone);
    expect((await search({ query: 'cat', limit: 100, group_by: 'asset' })).hits.map((h) => h.video_id)).not.toContain(gone);

    const flat = await search({ query: 'cat', limit: 5 });
    expect(flat.pagination.has_more).toBe(true);
    const last = await search({ query: 'cat', limit: 5, offset: flat.pagination.total - 2 });
    expect(last.hits).toHaveLength(2);
    expect(last.pagination.has_more).toBe(false);
    expect((await search({ query: 'cat', limit: 5, offset: flat.pagination.total + 10 })).hits).toEqual([]);
    for (const bad of [{ offset: -1 }, { offset: 1001 }, { offset: 1.5 }, { group_by: 'page' }]) {
      const r = await t.api('POST', '/search', { key, json: { query: 'cat', ...bad } });
      expect(r.status, JSON.stringify(bad)).toBe(422);
      expect(r.body.success).toBe(false);
    }
  });

  it('counts the facets of the result set, not of the library', async () => {
    const cat = await search({ query: 'cat', group_by: 'asset' });
    const kinds = new Map<string, number>();
    for (const h of cat.hits) kinds.set(h.asset_kind, (kinds.get(h.asset_kind) ?? 0) + 1);
    expect(Object.fromEntries(cat.facets.kinds.map((k) => [k.value, k.count]))).toEqual(Object.fromEntries(kinds));
    // The library holds things of four years (the book says 2004, the cat photo 2009); "photos
    // 2019" finds two photos, and its facets say so.
    const library = await t.api('GET', '/videos/facets', { key });
    expect(library.body.data.years.map((y: { value: number }) => y.value).sort()).toEqual([2004, 2009, 2018, 2019]);
    // Kept while nothing is written, never stale: a photo added, then deleted, is in and out of the next answer at once.
    expect((await t.api('GET', '/videos/facets', { key })).body.data).toEqual(library.body.data);
    const later = path.join(dir, 'spring-2021.jpg');
    fs.copyFileSync(corpus('scenes/opencv/fruits.jpg'), later);
    execFileSync('exiftool', ['-q', '-overwrite_original', '-DateTimeOriginal=2021:04:01 10:00:00', later]);
    const added = (await t.index(key, later, { ocr: false, objects: false, labels: false, faces: false, people: false })).video_id;
    const years = async () => ((await t.api('GET', '/videos/facets', { key })).body.data.years as Array<{ value: number }>).map((y) => y.value).sort();
    expect(await years()).toEqual([2004, 2009, 2018, 2019, 2021]);
    expect((await t.api('DELETE', `/videos/${added}`, { key })).status).toBe(200);
    expect(await years()).toEqual([2004, 2009, 2018, 2019]);
    const y2019 = await search({ query: 'photos 2019' });
    expect(y2019.hits.map((h) => h.file_name).sort()).toEqual(['boxing-day-2019.jpg', 'eve-2019.jpg']);
    expect(y2019.facets.years).toEqual([{ value: 2019, count: 2 }]);
    expect(y2019.facets.kinds).toEqual([{ value: 'image', count: 2 }]);
    expect(y2019.facets.cameras).toEqual([{ value: expect.stringMatching(/EOS R5/), count: 1 }]);
    expect(y2019.facets.places.map((p) => p.value)).toEqual([expect.stringMatching(/Paris/)]);
    // A collection holding one of them is a facet of the result too.
    const c = await t.api('POST', '/collections', { key, json: { name: 'Holidays' } });
    await t.api('POST', `/collections/${c.body.data.collection_id}/assets`, { key, json: { add: [ids['eve-2019.jpg'], ids['summer-2018.jpg']] } });
    const again = await search({ query: 'photos 2019' });
    expect(again.facets.collections).toEqual([{ value: c.body.data.collection_id, name: 'Holidays', count: 1 }]);
  });

  it('reads the dates people say on a fixed clock, and lists what was taken then when the other words match nothing', async () => {
    const eve = await search({ query: 'christmas eve 2019' });
    expect(eve.interpreted.filters).toEqual({ taken_after: '2019-12-24T00:00:00.000Z', taken_before: '2019-12-25T00:00:00.000Z' });
    expect(eve.hits.map((h) => h.file_name)).toEqual(['eve-2019.jpg']);
    const christmas = await search({ query: 'Christmas 2019' });
    expect(christmas.hits.map((h) => h.file_name).sort()).toEqual(['boxing-day-2019.jpg', 'eve-2019.jpg']);
    const summer = await search({ query: 'summer 2018' });
    expect(summer.hits.map((h) => h.file_name)).toEqual(['summer-2018.jpg']);
    // "last christmas" on 26 November 2026 is Christmas 2025: nothing then.
    const last = await search({ query: 'last christmas' });
    expect(last.interpreted.filters).toMatchObject({ taken_after: '2025-12-24T00:00:00.000Z' });
    expect(last.hits).toEqual([]);
    // Words that match nothing taken that day: set aside, and what was taken then listed.
    const snow = await search({ query: 'snowman on christmas eve 2019' });
    expect(snow.interpreted.set_aside).toBe('snowman');
    expect(snow.recipe).toBe('filters');
    expect(snow.hits.map((h) => h.file_name)).toEqual(['eve-2019.jpg']);
    // Words that do match keep their hits (the book has no date: nothing).
    const rabbit = await search({ query: 'rabbit christmas 2019' });
    expect(rabbit.interpreted.set_aside).toBe('rabbit');
    expect(rabbit.hits.map((h) => h.file_name)).toEqual(['boxing-day-2019.jpg', 'eve-2019.jpg']);
    // Without a date, words that match nothing find nothing.
    const none = await search({ query: 'zqxvj' });
    expect(none.hits).toEqual([]);
    expect(none.interpreted.set_aside).toBeUndefined();
  });
});
