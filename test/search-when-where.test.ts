// Search as photographers ask: when ("Paris 2019", "last summer", "Christmas 2018"), where ("in
// Kerala"), who ("woman smiling", two named people), what kind — read from the words or given as
// filters, against real corpus photos with metadata written by exiftool, on a fixed clock.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { clock } from '../server/store/ids.ts';
import { faceWords } from '../server/search/face-words.ts';

const NOW = Date.parse('2026-11-22T12:00:00Z');

interface Hit {
  video_id: string;
  file_name: string;
  modality: string;
  region: { x: number; y: number; w: number; h: number; label: string; source: string } | null;
  taken_at: string | null;
}

describe('search by when, where, who and what', () => {
  let t: TestServer;
  let key: string;
  const ids: Record<string, string> = {};
  const dir = tempDir('mi-when-');
  const realNow = clock.now;

  const photo = (name: string, from: string, tags: string[]) => {
    const file = path.join(dir, name);
    fs.copyFileSync(corpus(from), file);
    if (tags.length) execFileSync('exiftool', ['-q', '-overwrite_original', ...tags, file]);
    return file;
  };
  const gps = (lat: number, lon: number) => [
    `-GPSLatitude=${Math.abs(lat)}`,
    `-GPSLatitudeRef=${lat < 0 ? 'S' : 'N'}`,
    `-GPSLongitude=${Math.abs(lon)}`,
    `-GPSLongitudeRef=${lon < 0 ? 'W' : 'E'}`,
  ];
  const search = async (query: string, options: Record<string, unknown> = {}) => {
    const r = await t.api('POST', '/search', { key, json: { query, limit: 50, ...options } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data as { hits: Hit[]; interpreted: { words: string; filters: Record<string, unknown>; phrases: string[]; order: string }; recipe: string };
  };
  const names = (hits: Hit[]) => hits.map((h) => h.file_name);

  beforeAll(async () => {
    clock.now = () => NOW;
    t = await startTestServer({ workers: 2 });
    key = t.key('trips');
    const quick = { ocr: false, objects: false, labels: false, faces: false, people: false };
    const files: Array<[string, string, string[], Record<string, unknown>]> = [
      [
        'paris-2019.jpg',
        'scenes/opencv/building.jpg',
        ['-DateTimeOriginal=2019:07:14 18:30:00', '-OffsetTimeOriginal=+02:00', ...gps(48.8584, 2.2945), '-Model=iPhone 8', '-XMP-xmp:Rating=5'],
        quick,
      ],
      ['paris-2021.jpg', 'scenes/opencv/home.jpg', ['-DateTimeOriginal=2021:05:02 10:00:00', ...gps(48.8606, 2.3376), '-Make=Canon', '-Model=EOS R5'], quick],
      ['kochi.jpg', 'scenes/opencv/aero1.jpg', ['-DateTimeOriginal=2026:07:20 09:15:00', ...gps(9.9312, 76.2673)], quick],
      ['tokyo-xmas.jpg', 'scenes/opencv/stuff.jpg', ['-DateTimeOriginal=2018:12:25 20:00:00', ...gps(35.6595, 139.7005)], quick],
      ['undated.png', 'scenes/skimage/coffee.png', [], quick],
    ];
    for (const [name, from, tags, options] of files) ids[name] = (await t.index(key, photo(name, from, tags), options)).video_id;
    // Women, many smiling (face-api samples), and men (dlib Johns), with their faces.
    for (const n of [1, 2, 3, 4, 5, 6])
      ids[`sample${n}.jpg`] = (await t.index(key, corpus(`faces/face-api-samples/sample${n}.jpg`), { ocr: false, objects: false, labels: false })).video_id;
    const johns = fs
      .readFileSync(corpus('faces/dlib-johns/identities.tsv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    for (const who of ['John_Salley', 'John_Savage']) {
      for (const [file] of johns.filter(([, w]) => w === who).slice(0, 4))
        ids[file] = (await t.index(key, corpus(file), { ocr: false, objects: false, labels: false })).video_id;
    }
  }, 600_000);
  afterAll(async () => {
    clock.now = realNow;
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('"Paris 2019" finds the photo taken in Paris in July 2019 first, and not the one of 2021', async () => {
    const r = await search('Paris 2019');
    expect(r.hits[0].file_name).toBe('paris-2019.jpg');
    expect(r.hits[0].taken_at).toBe('2019-07-14T18:30:00+02:00');
    expect(names(r.hits)).not.toContain('paris-2021.jpg');
    expect(r.interpreted).toEqual({
      words: 'Paris',
      filters: { taken_after: '2019-01-01T00:00:00.000Z', taken_before: '2020-01-01T00:00:00.000Z' },
      phrases: ['2019'],
      order: 'relevance',
      // A name (Paris, written with a capital) is not widened.
      related: [],
    });
    expect(r.recipe).toMatch(/filters/);
    // The same as JSON filters, with the words alone.
    const json = await search('Paris', { search_options: { interpret: false, filters: { taken_after: '2019-01-01', taken_before: '2020-01-01' } } });
    expect(json.hits.map((h) => h.video_id)).toEqual(r.hits.map((h) => h.video_id));
    // Without the year, both Paris photos.
    expect(
      names((await search('Paris')).hits)
        .slice(0, 2)
        .sort(),
    ).toEqual(['paris-2019.jpg', 'paris-2021.jpg']);
  });

  it('reads "last summer", "Christmas 2018" and "between March and May 2021" relative to the clock', async () => {
    const summer = await search('last summer');
    expect(summer.interpreted.filters).toEqual({ taken_after: '2026-06-01T00:00:00.000Z', taken_before: '2026-09-01T00:00:00.000Z' });
    expect(names(summer.hits)).toEqual(['kochi.jpg']);
    expect(summer.hits[0].region).toBeNull();
    expect(names((await search('Christmas 2018')).hits)).toEqual(['tokyo-xmas.jpg']);
    const spring = await search('between March and May 2021');
    expect(spring.interpreted.filters).toEqual({ taken_after: '2021-03-01T00:00:00.000Z', taken_before: '2021-06-01T00:00:00.000Z' });
    expect(names(spring.hits)).toEqual(['paris-2021.jpg']);
  });

  it('finds places by name, in any spelling, and "in <place>" narrows to it', async () => {
    expect((await search('Kerala')).hits[0].file_name).toBe('kochi.jpg');
    const inKerala = await search('photos in Kerala');
    expect(inKerala.interpreted).toMatchObject({ filters: { place: 'Kerala', kinds: ['image'] }, words: '' });
    expect(names(inKerala.hits)).toEqual(['kochi.jpg']);
    expect(
      names((await search('ile de france')).hits)
        .slice(0, 2)
        .sort(),
    ).toEqual(['paris-2019.jpg', 'paris-2021.jpg']);
    // Location search answers from GPS places first.
    const loc = await t.api('POST', '/search/location', { key, json: { query: 'Japan' } });
    expect(loc.body.data.hits[0]).toMatchObject({ file_name: 'tokyo-xmas.jpg', modality: 'place' });
  });

  it('filters by camera, rating, kind and library as JSON, and orders by when taken', async () => {
    const f = (filters: Record<string, unknown>) => search('', { query: 'photos', search_options: { filters } });
    expect(names((await f({ camera: 'canon' })).hits)).toEqual(['paris-2021.jpg']);
    expect(names((await f({ rating_min: 4 })).hits)).toEqual(['paris-2019.jpg']);
    expect(names((await f({ place: 'FR' })).hits).sort()).toEqual(['paris-2019.jpg', 'paris-2021.jpg']);
    expect((await f({ kinds: ['video'] })).hits).toEqual([]);
    expect((await t.api('POST', '/search', { key, json: { query: 'x', search_options: { filters: { library_id: 'lib_nope' } } } })).status).toBe(404);
    expect((await t.api('POST', '/search', { key, json: { query: 'x', search_options: { filters: { taken_after: 'soon' } } } })).status).toBe(422);
    // Everything with a date, newest first.
    const all = await search('photos', { search_options: { order: 'taken_at' } });
    const dated = all.hits.filter((h) => ['paris-2019.jpg', 'paris-2021.jpg', 'kochi.jpg', 'tokyo-xmas.jpg'].includes(h.file_name));
    expect(names(dated)).toEqual(['kochi.jpg', 'paris-2021.jpg', 'paris-2019.jpg', 'tokyo-xmas.jpg']);
    const times = all.hits.map((h) => Date.parse(h.taken_at!.endsWith('Z') || /[+-]\d\d:\d\d$/.test(h.taken_at!) ? h.taken_at! : `${h.taken_at}Z`));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('"woman smiling" finds photos of smiling women first, pointing at the face', async () => {
    const r = await search('woman smiling');
    const top = r.hits.slice(0, 5);
    expect(top.every((h) => /^sample\d\.jpg$/.test(h.file_name))).toBe(true);
    for (const h of top) {
      expect(h.modality).toBe('person');
      expect(h.region).toMatchObject({ source: 'human-blazeface' });
      expect(h.region!.w).toBeGreaterThan(0);
    }
    // The words are those of the face, not of the photo.
    const detail = (await t.api('GET', `/videos/${top[0].video_id}/regions`, { key })).body.data.faces as Array<{ x: number; y: number }>;
    expect(detail.some((f) => f.x === top[0].region!.x && f.y === top[0].region!.y)).toBe(true);
    // Men are found as men.
    const men = await search('man');
    expect(men.hits.slice(0, 3).every((h) => /^faces\/dlib-johns/.test(Object.entries(ids).find(([, id]) => id === h.video_id)?.[0] ?? ''))).toBe(true);
  });

  it('reads two named people as "all of them must appear", and filters by people as JSON', async () => {
    const ws = t.server.store.workspaces.byName('trips')!.id;
    expect((await t.api('POST', '/people/recluster', { key })).status).toBe(202);
    await t.server.services.people.settled(ws);
    const people = (await t.api('GET', '/people', { key })).body.data.people as Array<{ person_id: string; cover: { video_id: string } }>;
    const salley = people.find((p) =>
      Object.entries(ids)
        .find(([, id]) => id === p.cover.video_id)?.[0]
        .includes('John_Salley'),
    )!;
    const savage = people.find((p) =>
      Object.entries(ids)
        .find(([, id]) => id === p.cover.video_id)?.[0]
        .includes('John_Savage'),
    )!;
    await t.api('PATCH', `/people/${salley.person_id}`, { key, json: { name: 'Anna' } });
    await t.api('PATCH', `/people/${savage.person_id}`, { key, json: { name: 'Ben' } });
    const both = await search('Anna and Ben');
    expect(both.interpreted).toMatchObject({ words: '', filters: { people: [salley.person_id, savage.person_id] } });
    expect(both.hits).toEqual([]); // never in one photo
    const one = await search('photos', { search_options: { filters: { people: [salley.person_id] } } });
    expect(one.hits.length).toBeGreaterThanOrEqual(3);
    for (const h of one.hits) expect(Object.entries(ids).find(([, id]) => id === h.video_id)?.[0]).toMatch(/John_Salley/);
    // A name alone is still a search for that person's faces.
    const anna = await search('Anna');
    expect(anna.interpreted.filters).toEqual({});
    expect(anna.hits[0].region).toMatchObject({ source: 'people', label: 'Anna' });
  });
});

describe('the words a face is found by', () => {
  it('names who and how only where the estimate is clear, each word once', () => {
    const woman = { age: 34, gender: 'female' as const, gender_score: 0.92, emotion: 'happy', emotion_score: 0.8 };
    expect(faceWords(woman)).toBe('face happy smiling smile laughing cheerful person adult woman');
    expect(faceWords({ ...woman, gender_score: 0.6 })).toBe('face happy smiling smile laughing cheerful person adult');
    expect(faceWords({ ...woman, emotion_score: 0.3 })).toBe('face person adult woman');
    expect(faceWords({ ...woman, age: 8, gender: 'male' })).toBe('face happy smiling smile laughing cheerful person child kid boy');
    expect(faceWords({ ...woman, age: 1 })).toBe('face happy smiling smile laughing cheerful person baby child');
    expect(faceWords({ ...woman, age: 70, emotion: 'surprise' })).toBe('face surprise surprised astonished person adult woman elderly old');
    expect(faceWords({ age: null, gender: null, gender_score: null, emotion: null, emotion_score: null })).toBe('face person');
  });
});
