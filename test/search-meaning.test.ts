// Search by meaning: WordNet expansion to what the detectors found, people by name, and typed
// search (character, location, emotion, music).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, corpus } from './helpers/corpus.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

describe('search by meaning', () => {
  let t: TestServer;
  let key: string;
  const id: Record<string, string> = {};
  const savage = ['000329_00925859.jpg', '000331_00926012.jpg', '000329_00925963.jpg', '000326_00926139.jpg'];

  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('meaning');
    const files: Record<string, string> = {
      car: corpus('scenes/opencv/licenseplate_motion.jpg'),
      cat: corpus('scenes/skimage/chelsea.png'),
      group: corpus('faces/face-api-samples/sample2.jpg'),
      ...Object.fromEntries(savage.map((f, i) => [`savage${i}`, path.join(CORPUS, 'faces/dlib-johns/John_Schneider', f)])),
    };
    for (const [name, file] of Object.entries(files)) id[name] = (await t.upload(key, file)).body.data.video_id;
    for (const v of Object.values(id)) await t.waitCompleted(key, v);
    await t.api('POST', '/people/recluster', { key });
    await t.server.services.people.settled(t.server.store.workspaces.byName('meaning')!.id);
  }, 240_000);
  afterAll(() => t.close());

  const search = (body: unknown, p = '/search') => t.api('POST', p, { key, json: body });
  /** A workspace of its own (`k`, its key) to index texts in (`text`), and the assets a query finds there (`hitsOf`). */
  const texts = (workspace: string) => {
    const k = t.key(workspace);
    return {
      k,
      text: async (name: string, body: string) => (await t.index(k, { name, data: new TextEncoder().encode(body) })).video_id as string,
      hitsOf: async (query: string) =>
        new Set(((await t.api('POST', '/search', { key: k, json: { query } })).body.data.hits as Array<{ video_id: string }>).map((h) => h.video_id)),
    };
  };

  it('"automobile" and "vehicle" find the car with its box; "kitten" finds the cat', async () => {
    for (const q of ['automobile', 'vehicle']) {
      const hit = (await search({ query: q })).body.data.hits[0];
      expect(hit, q).toMatchObject({ video_id: id.car, region: { label: 'car', source: 'centernet-coco' } });
    }
    const kitten = (await search({ query: 'kitten' })).body.data.hits[0];
    expect(kitten).toMatchObject({ video_id: id.cat, region: { label: 'cat' } });
    expect(kitten.snippet.highlights.length).toBeGreaterThan(0);
  });

  it('"cat" finds the cat alone: a rare sense of a word ("cat" as slang for a man) lends its synonyms only, not its broader term', async () => {
    const hits = (await search({ query: 'cat' })).body.data.hits as Array<{ video_id: string }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits.map((h) => h.video_id))).toEqual(new Set([id.cat]));
    // The faces found in the others are still found by the words that name them.
    const men = (await search({ query: 'man' })).body.data.hits as Array<{ video_id: string }>;
    expect(men.some((h) => h.video_id === id.savage0)).toBe(true);
  });

  it('ranks the words asked for above related words, rarer as these may be (no second pass asked for)', async () => {
    const other = t.key('meaning-related');
    const text = (name: string, body: string) => t.index(other, { name, data: new TextEncoder().encode(body) });
    // "tomcat", WordNet's narrower word for "cat", in one short line; "cat" itself in longer ones, and in more of them.
    const tomcat = (await text('fence.txt', 'A tomcat on the fence\n')).video_id;
    const story = (
      await text(
        'story.txt',
        [
          'The cat sat by the fire all through the long winter evening while the family talked.',
          'In the morning the cat went out into the garden and watched the birds on the old wall.',
          'Nobody in the house could say where the cat slept on the nights it did not come home.',
        ].join('\n\n'),
      )
    ).video_id;
    await text('notes.txt', 'A note about the cat and the neighbours, who feed it when we are away for a week.\n');
    const hits = (await t.api('POST', '/search', { key: other, json: { query: 'cat' } })).body.data.hits as Array<{ video_id: string; score: number }>;
    expect(hits.some((h) => h.video_id === tomcat)).toBe(true);
    const first = hits.findIndex((h) => h.video_id === tomcat);
    expect(hits[0].video_id).not.toBe(tomcat);
    expect(hits.slice(0, first).some((h) => h.video_id === story)).toBe(true);
  });

  it("finds a named person's photos by the name, with the face as the region", async () => {
    const people = (await t.api('GET', '/people', { key })).body.data.people;
    const john = people.find((p: { face_count: number }) => p.face_count >= 3);
    expect(john).toBeTruthy();
    await t.api('PATCH', `/people/${john.person_id}`, { key, json: { name: 'John Schneider' } });
    const hits = (await search({ query: 'john schneider' })).body.data.hits;
    const named = hits.filter((h: { modality: string }) => h.modality === 'person');
    expect(named.length).toBe(john.face_count);
    expect(hits.slice(0, named.length).every((h: { modality: string }) => h.modality === 'person')).toBe(true);
    expect(named[0].region).toMatchObject({ label: 'John Schneider', source: 'people' });
    const character = (await search({ query: 'Schneider' }, '/search/character')).body.data;
    expect(character.type).toBe('character');
    expect(character.hits.every((h: { modality: string }) => h.modality === 'person')).toBe(true);
    expect(character.hits.length).toBe(john.face_count);
  });

  it('a name is not widened: "Lincoln" finds no lawyer, "John" no bathroom, nor "john" where someone is named John', async () => {
    const text = async (k: string, name: string, body: string) => (await t.index(k, { name, data: new TextEncoder().encode(body) })).video_id;
    const hitsOf = async (k: string, query: string) =>
      new Set(((await t.api('POST', '/search', { key: k, json: { query } })).body.data.hits as Array<{ video_id: string }>).map((h) => h.video_id));
    // A workspace where nobody is named John: a lowercase "john" is WordNet's word, widened.
    const other = t.key('meaning-names');
    const lawyer = await text(other, 'office.txt', 'The lawyer wrote to the president about the new law.\n');
    const house = await text(other, 'house.txt', 'A small house with a bathroom and a closet under the stairs.\n');
    expect(await hitsOf(other, 'john')).toContain(house);
    expect(await hitsOf(other, 'attorney')).toContain(lawyer);
    // Written with a capital, names of people and places in the lexicon lend no words.
    expect(await hitsOf(other, 'John')).not.toContain(house);
    expect(await hitsOf(other, 'Lincoln')).not.toContain(lawyer);
    // Where a person is named John, "john" stands for them, however it is written.
    const people = (await t.api('GET', '/people', { key })).body.data.people as Array<{ person_id: string; face_count: number }>;
    const john = people.find((p) => p.face_count >= 3)!;
    await t.api('PATCH', `/people/${john.person_id}`, { key, json: { name: 'John Schneider' } });
    const named = await text(key, 'house.txt', 'A small house with a bathroom and a closet under the stairs.\n');
    const hits = (await search({ query: 'john' })).body.data.hits as Array<{ video_id: string; modality: string }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.modality === 'person')).toBe(true);
    expect(hits.some((h) => h.video_id === named)).toBe(false);
  });

  it('widens a word only to words that commonly mean what it names: "mountain" finds no "deal" or "flock", "beach" no "area", "river" no river\'s name', async () => {
    const { k, text, hitsOf } = texts('meaning-widened');
    // Each holds a word WordNet relates to the query, in a meaning the query does not have.
    const amount = await text('amount.txt', 'It took a great deal of thought. Birds of a feather flock together, and she put them into a flower-pot.\n');
    const region = await text('region.txt', 'The garden covers an area of two acres behind the house.\n');
    const company = await text('company.txt', 'Amazon shipped the parcel on Monday, and Congo beat Ghana at football.\n');
    const machine = await text('machine.txt', 'The washing machine stopped halfway.\n');
    // And words the queries do mean.
    const alps = await text('alps.txt', 'We climbed an alp above the village and saw a volcano across the valley.\n');
    const taxi = await text('taxi.txt', 'A taxi and a jeep waited by the parked car.\n');
    const pond = await text('pond.txt', 'Ducks swam across the pond and the lagoon beyond it.\n');
    // A related word written as a name: "ben" is a mountain, Ben Collins is not.
    const ben = await text('leaders.txt', 'Ben Collins led the project from April 2001 until April 2002.\n');
    expect(await hitsOf('mountain')).toEqual(new Set([alps]));
    expect(await hitsOf('beach')).not.toContain(region);
    expect(await hitsOf('river')).not.toContain(company);
    expect(await hitsOf('lake')).toEqual(new Set([pond]));
    expect(await hitsOf('car')).toEqual(new Set([taxi]));
    expect(await hitsOf('vehicle')).toContain(taxi);
    expect(await hitsOf('car')).not.toContain(machine);
    expect(await hitsOf('mountain')).not.toContain(amount);
    expect(await hitsOf('mountain')).not.toContain(ben);
    expect(await hitsOf('ben')).toEqual(new Set([ben]));
    // The answer says which related words it searched, and for which of the query's words.
    const { related } = (await t.api('POST', '/search', { key: k, json: { query: 'the mountain' } })).body.data.interpreted as {
      related: Array<{ word: string; for: string[] }>;
    };
    expect(related).toEqual(
      expect.arrayContaining([
        { word: 'alp', for: ['mountain'] },
        { word: 'volcano', for: ['mountain'] },
      ]),
    );
    expect(related.map((r) => r.word)).not.toContain('deal');
  });

  it('widens two words that make one noun as that noun: "hot dog" finds the frankfurter and no puppy, "living room" the parlour and no kitchen', async () => {
    const { k, text, hitsOf } = texts('meaning-compounds');
    const sausage = await text('lunch.txt', 'A frankfurter with mustard from the stand by the station.\n');
    const puppy = await text('puppy.txt', 'A puppy slept on the rug all afternoon.\n');
    const parlour = await text('house.txt', 'The guests were shown into the parlour.\n');
    const kitchen = await text('kitchen.txt', 'The kitchen smelled of fresh bread.\n');
    expect(await hitsOf('hot dog')).toEqual(new Set([sausage]));
    expect(await hitsOf('hot dogs')).toEqual(new Set([sausage]));
    expect(await hitsOf('living room')).toEqual(new Set([parlour]));
    // Each word alone is widened as before.
    expect(await hitsOf('dog')).toContain(puppy);
    expect(await hitsOf('room')).toContain(kitchen);
    const { related } = (await t.api('POST', '/search', { key: k, json: { query: 'a hot dog' } })).body.data.interpreted as {
      related: Array<{ word: string; for: string[] }>;
    };
    expect(related).toContainEqual({ word: 'frankfurter', for: ['hot', 'dog'] });
  });

  it('widens an adjective by its own meaning ("white" the colour: ivory, not "somebody") and a plural by its singular ("planes": the aircraft, not a plan)', async () => {
    const { text, hitsOf } = texts('meaning-adjectives');
    const ivory = await text('gown.txt', 'She wore a gown of ivory silk.\n');
    const somebody = await text('door.txt', 'Somebody knocked twice at the door.\n');
    const navy = await text('coat.txt', 'A navy coat hung by the door.\n');
    const clothing = await text('shop.txt', 'The shop sold clothing and shoes.\n');
    const aircraft = await text('airport.txt', 'An airliner waited on the runway.\n');
    const plan = await text('notes.txt', 'The plan for the garden was drawn in pencil.\n');
    const white = await hitsOf('white dress');
    expect(white).toContain(ivory);
    expect(white).not.toContain(somebody);
    const blue = await hitsOf('blue car');
    expect(blue).toContain(navy);
    expect(blue).not.toContain(clothing);
    const planes = await hitsOf('planes');
    expect(planes).toContain(aircraft);
    expect(planes).not.toContain(plan);
    // A word written as a noun is widened as one.
    expect(await hitsOf('plan')).toContain(plan);
  });

  it('finds a file by the words of its name, and shows the name as it is, the word marked', async () => {
    const other = t.key('meaning-file-names');
    const name = 'holiday_2024-seaside notes.txt';
    const id = (await t.index(other, { name, data: new TextEncoder().encode('Tide tables and the ferry times.\n') })).video_id;
    const hit = ((await t.api('POST', '/search', { key: other, json: { query: 'seaside' } })).body.data.hits as Array<Record<string, never>>)[0];
    expect(hit).toMatchObject({ video_id: id, modality: 'name', snippet: { text: name } });
    const [[from, to]] = (hit.snippet as { highlights: Array<[number, number]> }).highlights;
    expect(name.slice(from, to)).toBe('seaside');
  });

  it('"people smiling" ranks the photos whose entries together hold both words (a label, a smiling face) above those that hold one', async () => {
    const hits = (await search({ query: 'people smiling', limit: 20 })).body.data.hits as Array<{ video_id: string; modality: string }>;
    const smiling = (v: string) => t.server.store.faces.forAsset(v).some((f) => f.emotion === 'happy');
    const labelled = (v: string) => t.server.store.search.entriesOf(v, ['label']).some((e) => /\bpeople\b/.test(e.text));
    // Each Savage photo is labelled "people" (its face); one of them does not smile.
    expect(savage.every((_, i) => labelled(id[`savage${i}`]))).toBe(true);
    expect(smiling(id.savage2)).toBe(false);
    const both = hits.map((h) => smiling(h.video_id) && labelled(h.video_id));
    expect(both.filter(Boolean).length).toBeGreaterThanOrEqual(3);
    // Every photo holding both words comes before any holding one, though its "people" label ranks the same.
    expect(both.indexOf(false)).toBe(both.filter(Boolean).length);
    expect(hits.map((h) => h.video_id)).toContain(id.savage2);
  });

  it('typed search: emotion finds faces by expression, location uses labels and text, music is unavailable', async () => {
    const emotion = await search({ query: 'smiling' }, '/search/emotion');
    expect(emotion.status).toBe(200);
    expect(emotion.body.data.hits.length).toBeGreaterThan(0);
    for (const h of emotion.body.data.hits) {
      expect(h.modality).toBe('person');
      const face = t.server.store.faces.forAsset(h.video_id).find((f) => Math.abs(f.timestamp - h.timestamp) < 1e-9 && f.emotion === 'happy');
      expect(face).toBeTruthy();
    }
    expect((await search({ query: 'purple' }, '/search/emotion')).status).toBe(422);
    const location = (await search({ query: 'vehicle' }, '/search/location')).body.data;
    expect(location.hits.every((h: { modality: string }) => ['label', 'ocr'].includes(h.modality))).toBe(true);
    expect(location.hits.map((h: { video_id: string }) => h.video_id)).toContain(id.car);
    const music = (await search({ query: 'jazz' }, '/search/music')).body.data;
    expect(music).toMatchObject({ type: 'music', hits: [], unavailable: expect.stringMatching(/not available/) });
    expect((await search({ query: 'x' }, '/search/smell')).status).toBe(422);
  });
});
