// Naming people fast, at the HTTP level on real faces (the corpus's dlib-johns crops and a photo of
// two people): a person made from faces the owner knows, the one-picture rule, ignored faces, the
// faces no person holds, face crops, a person's faces weakest first, and re-grouping by itself.
import fs from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const OPTIONS = { ocr: false, objects: false, labels: false };
const crops = (who: string, n: number, from = 0) =>
  fs
    .readdirSync(corpus(`faces/dlib-johns/${who}`))
    .sort()
    .slice(from, from + n)
    .map((f) => corpus(`faces/dlib-johns/${who}/${f}`));

describe('naming people: create, assign, ignore, loose faces, crops', () => {
  let t: TestServer;
  let key: string;
  let other: string;
  /** The face of each photo of John Salley, John Savage; both faces of the photo of two people. */
  const salley: string[] = [];
  const savage: string[] = [];
  let pair: string[] = [];
  let pairAsset: string;
  const counts = () =>
    Object.fromEntries(
      ['people', 'face_people', 'face_ignores'].map((tbl) => [tbl, (t.server.store.db.prepare(`SELECT COUNT(*) AS n FROM ${tbl}`).get() as { n: number }).n]),
    );

  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('family');
    other = t.key('neighbours');
    for (const [who, into] of [
      ['John_Salley', salley],
      ['John_Savage', savage],
    ] as const) {
      for (const f of crops(who, 2)) into.push(t.server.store.faces.forAsset((await t.index(key, f, OPTIONS)).video_id)[0].id);
    }
    const two = await t.index(key, corpus('faces/dlib-faces/2008_001009.jpg'), OPTIONS);
    pairAsset = two.video_id;
    pair = t.server.store.faces.forAsset(two.video_id).map((f) => f.id);
    expect(pair.length).toBeGreaterThanOrEqual(2);
  }, 300_000);
  afterAll(async () => {
    await t?.close();
  });

  it('lists the faces no person holds, best first, marked small or blurred, with a crop URL each', async () => {
    const r = await t.api('GET', '/faces?limit=3', { key });
    expect(r.status).toBe(200);
    const { faces, pagination } = r.body.data;
    expect(pagination).toEqual({ limit: 3, offset: 0, total: 4 + pair.length, has_more: true });
    expect(faces).toHaveLength(3);
    for (let i = 1; i < faces.length; i++) expect(faces[i].quality).toBeLessThanOrEqual(faces[i - 1].quality);
    for (const f of faces) {
      expect(Object.keys(f).sort()).toEqual(
        [
          'asset_kind',
          'blurred',
          'box',
          'face_id',
          'frame_url',
          'good',
          'ignored',
          'not_a_face',
          'page',
          'quality',
          'small',
          'thumbnail_url',
          'timestamp',
          'video_id',
        ].sort(),
      );
      expect(f.ignored).toBe(false);
    }
    const rest = (await t.api('GET', '/faces?limit=3&offset=3', { key })).body.data;
    expect(rest.pagination.has_more).toBe(false);
    const all = [...faces, ...rest.faces].map((f) => f.face_id);
    expect(new Set(all)).toEqual(new Set([...salley, ...savage, ...pair]));
    // Another workspace sees none of them.
    expect((await t.api('GET', '/faces', { key: other })).body.data.pagination.total).toBe(0);
    expect((await t.api('GET', '/faces?limit=501', { key })).status).toBe(422);
  });

  it('serves a face as a crop: signed or with a key, cut once and kept, sized, and 404 to another workspace', async () => {
    const face = (await t.api('GET', '/faces?limit=1', { key })).body.data.faces[0];
    const signed = await fetch(face.thumbnail_url);
    expect(signed.status).toBe(200);
    expect(signed.headers.get('content-type')).toBe('image/jpeg');
    expect(signed.headers.get('cache-control')).toMatch(/immutable/);
    const meta = await sharp(Buffer.from(await signed.arrayBuffer())).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([128, 128, 'jpeg']);
    const kept = `${t.server.store.files.assetDir(face.video_id)}/faces/${face.face_id}-128.jpg`;
    const cutAt = fs.statSync(kept).mtimeMs;
    expect((await fetch(face.thumbnail_url)).status).toBe(200);
    expect(fs.statSync(kept).mtimeMs).toBe(cutAt); // served from the file, not cut again

    const bytes = await fetch(face.thumbnail_url, { headers: { Accept: 'application/octet-stream' } });
    expect(bytes.headers.get('content-type')).toBe('application/octet-stream'); // for clients that read other types as bytes only
    const small = await fetch(`${t.url}/api/v1/faces/${face.face_id}/thumbnail?size=64`, { headers: { 'X-API-Key': key } });
    expect(small.status).toBe(200);
    expect((await sharp(Buffer.from(await small.arrayBuffer())).metadata()).width).toBe(64);
    expect((await fetch(`${t.url}/api/v1/faces/${face.face_id}/thumbnail?size=64`, { headers: { 'X-API-Key': other } })).status).toBe(404);
    expect((await fetch(`${t.url}/api/v1/faces/${face.face_id}/thumbnail`)).status).toBe(401);
    expect((await fetch(`${t.url}/api/v1/faces/${face.face_id}/thumbnail?size=100`, { headers: { 'X-API-Key': key } })).status).toBe(422);
    const forged = face.thumbnail_url.replace(
      face.face_id,
      pair.find((p) => p !== face.face_id)!,
    );
    expect((await fetch(forged)).status).toBe(403);
    expect((await fetch(`${t.url}/api/v1/faces/face_nope/thumbnail`, { headers: { 'X-API-Key': key } })).status).toBe(404);
  });

  it('makes a named person from one face; refuses a taken name and two faces of one picture, storing nothing', async () => {
    const before = counts();
    const made = await t.api('POST', '/people', { key, json: { name: 'Ada', face_ids: [salley[0]] } });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ name: 'Ada', status: 'named', face_count: 1, cover_face_id: salley[0] });
    expect(made.body.data.cover.thumbnail_url).toMatch(/\/faces\/.+\/thumbnail\?size=128&exp=\d+&sig=/);
    expect(counts()).toEqual({ ...before, people: before.people + 1, face_people: before.face_people + 1 });

    const taken = await t.api('POST', '/people', { key, json: { name: 'ada', face_ids: [salley[1]] } });
    expect(taken.status).toBe(422);
    expect(taken.body.error.message).toContain(made.body.data.person_id);
    const clash = await t.api('POST', '/people', { key, json: { name: 'The pair', face_ids: pair.slice(0, 2) } });
    expect(clash.status).toBe(422);
    expect(clash.body.error.message).toMatch(/two faces of one picture/);
    expect(clash.body.error.message).toContain(pair[1]);
    const foreign = await t.api('POST', '/people', { key: other, json: { name: 'Eve', face_ids: [salley[1]] } });
    expect(foreign.status).toBe(422);
    expect((await t.api('POST', '/people', { key, json: { name: '  ', face_ids: [salley[1]] } })).status).toBe(422);
    expect((await t.api('POST', '/people', { key: t.key('family', ['read']), json: { name: 'Bo', face_ids: [salley[1]] } })).status).toBe(403);
    expect(counts()).toEqual({ ...before, people: before.people + 1, face_people: before.face_people + 1 });

    // Assign to the existing person; a face of the same picture as one they hold is refused.
    const add = await t.api('POST', `/people/${made.body.data.person_id}/faces`, { key, json: { face_ids: [salley[1]] } });
    expect(add.status).toBe(200);
    expect(add.body.data.person.face_count).toBe(2);
    const pairPerson = await t.api('POST', '/people', { key, json: { name: 'Girl', face_ids: [pair[0]] } });
    expect(pairPerson.status).toBe(201);
    const second = await t.api('POST', `/people/${pairPerson.body.data.person_id}/faces`, { key, json: { face_ids: [pair[1]] } });
    expect(second.status).toBe(422);
    expect(second.body.error.message).toContain(pair[1]);
    // Held faces are no longer loose.
    const loose = (await t.api('GET', '/faces?limit=100', { key })).body.data.faces.map((f: { face_id: string }) => f.face_id);
    expect(loose).not.toContain(salley[0]);
    expect(loose).not.toContain(pair[0]);
  });

  it('ignores faces out of grouping and suggestions, lists them apart, and takes it back', async () => {
    const ws = t.server.store.workspaces.byName('family')!.id;
    const ignore = await t.api('POST', '/faces/ignore', { key, json: { face_ids: savage } });
    expect(ignore.status).toBe(200);
    expect(ignore.body.data).toEqual({ faces: savage, ignored: true, not_a_face: false });
    const waiting = (await t.api('GET', '/faces?limit=100', { key })).body.data.faces.map((f: { face_id: string }) => f.face_id);
    expect(waiting).not.toContain(savage[0]);
    const ignored = (await t.api('GET', '/faces?ignored=true', { key })).body.data;
    expect(ignored.faces.map((f: { face_id: string }) => f.face_id).sort()).toEqual([...savage].sort());
    expect(ignored.faces.every((f: { ignored: boolean }) => f.ignored)).toBe(true);
    // Left out of the plan a re-group would apply.
    const plan = (await t.api('POST', '/people/recluster?dry_run=true', { key })).body.data.plan;
    const planned = [...plan.joins.map((j: { face_id: string }) => j.face_id), ...plan.new_people.flatMap((g: { face_ids: string[] }) => g.face_ids)];
    expect(planned).not.toContain(savage[0]);
    expect(t.server.store.people.waitingFaces(ws).map((f) => f.id)).not.toContain(savage[0]);
    // A face a person holds, or another workspace's, cannot be ignored; nothing is stored.
    const before = counts();
    expect((await t.api('POST', '/faces/ignore', { key, json: { face_ids: [pair[1], salley[0]] } })).status).toBe(422);
    expect((await t.api('POST', '/faces/ignore', { key: other, json: { face_ids: [pair[1]] } })).status).toBe(422);
    expect(counts()).toEqual(before);
    // A re-detection keeps the owner's word.
    const savageAsset = t.server.store.regions.byId(savage[0])!.asset_id;
    expect((await t.api('POST', `/videos/${savageAsset}/reindex`, { key, json: { stages: ['faces'] } })).status).toBe(202);
    await t.waitCompleted(key, savageAsset);
    const redetected = t.server.store.faces.forAsset(savageAsset)[0].id;
    expect(redetected).not.toBe(savage[0]);
    expect(t.server.store.people.isIgnored(redetected)).toBe(true);
    savage[0] = redetected;

    const back = await t.api('POST', '/faces/ignore', { key, json: { face_ids: savage, ignored: false } });
    expect(back.body.data).toEqual({ faces: savage, ignored: false, not_a_face: false });
    expect((await t.api('GET', '/faces?ignored=true', { key })).body.data.pagination.total).toBe(0);
    expect(t.server.store.people.waitingFaces(ws).map((f) => f.id)).toEqual(expect.arrayContaining(savage));
    void pairAsset;
  });

  it('takes a face the owner says is no face off its picture, out of search and out of its labels, through a re-detection, and back', async () => {
    // The mandrill: the detector finds a face on it, labelled "people" and found as a person.
    const baboon = (await t.index(key, corpus('scenes/opencv/baboon.jpg'), { ocr: false, objects: false })).video_id as string;
    const [face] = t.server.store.faces.forAsset(baboon).map((f) => f.id);
    expect(face).toBeTruthy();
    const labels = () => t.server.store.search.entriesOf(baboon, ['label']).map((e) => e.text);
    const persons = () => t.server.store.search.entriesOf(baboon, ['person']);
    const shown = async () => (await t.api('GET', `/videos/${baboon}/regions?timestamp=0`, { key })).body.data.faces.map((f: { face_id: string }) => f.face_id);
    const found = async (q: string) =>
      (await t.api('POST', '/search', { key, json: { query: q, limit: 50 } })).body.data.hits.some((h: { video_id: string }) => h.video_id === baboon);
    expect(labels()).toContain('people');
    expect(persons()).toHaveLength(1);
    expect(await shown()).toEqual([face]);
    expect(await found('people')).toBe(true);

    // Said only of faces ignored.
    expect((await t.api('POST', '/faces/ignore', { key, json: { face_ids: [face], ignored: false, not_a_face: true } })).status).toBe(422);
    const no = await t.api('POST', '/faces/ignore', { key, json: { face_ids: [face], not_a_face: true } });
    expect(no.status).toBe(200);
    expect(no.body.data).toEqual({ faces: [face], ignored: true, not_a_face: true });
    // At once: not shown on the picture, not found as a person; listed among the ignored, marked.
    expect(persons()).toEqual([]);
    expect(await shown()).toEqual([]);
    const listed = (await t.api('GET', '/faces?ignored=true&limit=100', { key })).body.data.faces.find((f: { face_id: string }) => f.face_id === face);
    expect(listed).toMatchObject({ ignored: true, not_a_face: true });
    // Its labels are worked out again without it: no "people", and "people" no longer finds it.
    await t.waitCompleted(key, baboon);
    expect(labels()).not.toContain('people');
    expect(await found('people')).toBe(false);

    // A re-detection keeps the owner's word.
    expect((await t.api('POST', `/videos/${baboon}/reindex`, { key, json: { stages: ['faces'] } })).status).toBe(202);
    await t.waitCompleted(key, baboon);
    const [again] = t.server.store.faces.forAsset(baboon).map((f) => f.id);
    expect(again).not.toBe(face);
    expect(t.server.store.people.isNotAFace(again)).toBe(true);
    expect(persons()).toEqual([]);
    expect(await shown()).toEqual([]);
    expect(labels()).not.toContain('people');

    // Taken back: shown, found and labelled again.
    const back = await t.api('POST', '/faces/ignore', { key, json: { face_ids: [again], ignored: false } });
    expect(back.body.data).toEqual({ faces: [again], ignored: false, not_a_face: false });
    expect(persons()).toHaveLength(1);
    expect(await shown()).toEqual([again]);
    await t.waitCompleted(key, baboon);
    expect(labels()).toContain('people');
    expect(await found('people')).toBe(true);
  });

  it('takes a face a person holds off them when the owner says it is no face, and no grouping gives it back to them', async () => {
    // The mandrill again, in a workspace of its own, named as someone first.
    const k = t.key('no-face-held');
    const baboon = (await t.index(k, corpus('scenes/opencv/baboon.jpg'), { ocr: false, objects: false })).video_id as string;
    const [face] = t.server.store.faces.forAsset(baboon).map((f) => f.id);
    const made = await t.api('POST', '/people', { key: k, json: { name: 'Bob', face_ids: [face] } });
    expect(made.status).toBe(201);
    const bob = made.body.data.person_id as string;
    const foundAsBob = async () =>
      (await t.api('POST', '/search', { key: k, json: { query: 'Bob' } })).body.data.hits.some((h: { video_id: string }) => h.video_id === baboon);
    expect(await foundAsBob()).toBe(true);
    // Ignoring alone still asks for the face to be taken off them first; nothing changes.
    expect((await t.api('POST', '/faces/ignore', { key: k, json: { face_ids: [face] } })).status).toBe(422);
    expect(t.server.store.people.personOfFace(face)).toBe(bob);

    const no = await t.api('POST', '/faces/ignore', { key: k, json: { face_ids: [face], not_a_face: true } });
    expect(no.status).toBe(200);
    expect(no.body.data).toEqual({ faces: [face], ignored: true, not_a_face: true });
    expect(t.server.store.people.personOfFace(face)).toBeNull();
    // Bob keeps his name and has no face; the mandrill is not found as him, nor shown with a face.
    expect((await t.api('GET', `/people/${bob}`, { key: k })).body.data).toMatchObject({ name: 'Bob', face_count: 0 });
    expect(await foundAsBob()).toBe(false);
    expect((await t.api('GET', `/videos/${baboon}/regions?timestamp=0`, { key: k })).body.data.faces).toEqual([]);

    // Taken back, it is a face waiting to be grouped, and not Bob's: the owner said so on the way.
    expect((await t.api('POST', '/faces/ignore', { key: k, json: { face_ids: [face], ignored: false } })).status).toBe(200);
    const waiting = (await t.api('GET', '/faces?limit=100', { key: k })).body.data.faces.map((f: { face_id: string }) => f.face_id);
    expect(waiting).toContain(face);
    const plan = (await t.api('POST', '/people/recluster?dry_run=true', { key: k })).body.data.plan;
    expect(plan.joins.filter((j: { face_id: string; person_id: string }) => j.face_id === face && j.person_id === bob)).toEqual([]);
    expect(t.server.store.people.isExcluded(face, bob)).toBe(true);
  });

  it("pages a person's faces best first or weakest first", async () => {
    const ada = (await t.api('GET', '/people', { key })).body.data.people.find((p: { name: string }) => p.name === 'Ada');
    const best = (await t.api('GET', `/people/${ada.person_id}?limit=1`, { key })).body.data;
    const weakest = (await t.api('GET', `/people/${ada.person_id}?limit=1&order=weakest`, { key })).body.data;
    expect(best.faces_pagination).toMatchObject({ total: 2, has_more: true });
    expect(weakest.faces[0].quality).toBeLessThanOrEqual(best.faces[0].quality);
    expect(weakest.faces[0].face_id).not.toBe(best.faces[0].face_id);
    expect(best.faces[0].thumbnail_url).toMatch(/\/thumbnail\?/);
    expect((await t.api('GET', `/people/${ada.person_id}?order=worst`, { key })).status).toBe(422);
  });
});

describe('re-grouping by itself after a batch', () => {
  it('makes one unnamed person of three new photos of one man after a quiet period, without a call, leaving a named person as it was', async () => {
    const quietMs = 2500;
    const t = await startTestServer({ workers: 2, peopleAutoGroup: { quietMs, maxWaitMs: 60_000 } });
    try {
      const key = t.key('family');
      const ada = t.server.store.faces.forAsset((await t.index(key, crops('John_Schneider', 1)[0], OPTIONS)).video_id)[0].id;
      const named = (await t.api('POST', '/people', { key, json: { name: 'Ada', face_ids: [ada] } })).body.data;
      const salley = crops('John_Salley', 3);
      for (const f of salley) await t.index(key, f, OPTIONS);
      const doneAt = Date.now();
      // Within the quiet period: nothing grouped yet.
      const early = (await t.api('GET', '/people', { key })).body.data.people;
      if (Date.now() - doneAt < quietMs - 500) expect(early).toHaveLength(1);
      let people: Array<{ person_id: string; name: string; face_count: number; status: string }> = [];
      for (let i = 0; i < 200; i++) {
        people = (await t.api('GET', '/people', { key })).body.data.people;
        if (people.length === 2) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(Date.now() - doneAt).toBeGreaterThanOrEqual(quietMs - 200);
      expect(people).toHaveLength(2);
      const formed = people.find((p) => p.person_id !== named.person_id)!;
      expect(formed).toMatchObject({ name: '', status: 'unverified', face_count: 3 });
      const detail = (await t.api('GET', `/people/${formed.person_id}`, { key })).body.data;
      expect(detail.faces.every((f: { assigned_by: string }) => f.assigned_by === 'cluster')).toBe(true);
      const after = (await t.api('GET', `/people/${named.person_id}`, { key })).body.data;
      expect(after).toMatchObject({ name: 'Ada', face_count: 1, merged_into: null });
      expect(after.faces.map((f: { face_id: string }) => f.face_id)).toEqual([ada]);
    } finally {
      await t.close();
    }
  }, 300_000);
});
