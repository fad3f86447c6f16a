// Recall and chat over indexed corpus documents and photos, with questions written here.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, corpus } from './helpers/corpus.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { NO_EVIDENCE } from '../server/answers/question.ts';

describe('recall and chat', () => {
  let t: TestServer;
  let key: string;
  const id: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('reading');
    const files: Record<string, string> = {
      alice: corpus('docs/carroll-wonderland.pdf'),
      group: corpus('faces/face-api-samples/sample1.jpg'),
      ...Object.fromEntries(
        ['000329_00925859.jpg', '000331_00926012.jpg', '000329_00925963.jpg'].map((f, i) => [
          `john${i}`,
          path.join(CORPUS, 'faces/dlib-johns/John_Schneider', f),
        ]),
      ),
    };
    for (const [name, file] of Object.entries(files)) {
      id[name] = (await t.upload(key, file, { pipeline: 'arrow', options: JSON.stringify({ ocr: false }) })).body.data.video_id;
    }
    for (const v of Object.values(id)) await t.waitCompleted(key, v);
    await t.api('POST', '/people/recluster', { key });
    await t.server.services.people.settled(t.server.store.workspaces.byName('reading')!.id);
    const john = (await t.api('GET', '/people', { key })).body.data.people.find((p: { face_count: number }) => p.face_count === 3);
    await t.api('PATCH', `/people/${john.person_id}`, { key, json: { name: 'John Schneider' } });
  }, 240_000);
  afterAll(() => t.close());

  const chat = (body: unknown, k = key) => t.api('POST', '/chat', { key: k, json: body });

  it('answers with a sentence of the book and cites its page', async () => {
    const r = await chat({ query: 'What did Alice think after such a fall?' });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d).toMatchObject({ evidence: 'found', composer: 'extractive', question_type: 'what', truncated: false });
    expect(d.answer).toContain('after such a fall as this, I shall think nothing of tumbling down stairs!');
    expect(d.answer).toMatch(/\[1\]/);
    expect(d.citations[0]).toMatchObject({ n: 1, video_id: id.alice, asset_kind: 'document', page: 5, modality: 'passage' });
    expect(d.citations[0].snippet).toContain('thought Alice to herself');
  });

  it('answers with whole sentences where the page cut them into passages', async () => {
    // Page 80 holds "These were the verses the White Rabbit read:–" as a passage of its own, and the
    // verse it introduces as the next one: the answer reads the sentence across them.
    const d = (await chat({ query: 'Which verses did the White Rabbit read?' })).body.data;
    expect(d.answer).toContain('These were the verses the White Rabbit read:– ‘They told me you had been to her, And mentioned me to him:');
    const cited = d.citations.find((c: { page: number }) => c.page === 80);
    expect(cited.snippet).toMatch(/^These were the verses the White Rabbit read:– ‘They told me/);
  });

  it("reads a sentence on over the turn of a page, past the next page's number, and not into the running head above it", async () => {
    // Page 25 ends "…said the Rabbit’s voice; and Alice called"; page 26 opens with its number
    // ("35") and then "out as loud as she could, ‘If you do. I’ll set Dinah at you!’", read on to
    // the mark that closes the quotation.
    const d = (await chat({ query: 'Who said they must burn the house down?' })).body.data;
    expect(d.answer).toContain(
      '‘We must burn the house down!’ said the Rabbit’s voice; and Alice called out as loud as she could, ‘If you do. I’ll set Dinah at you!’',
    );
    expect(d.answer).not.toMatch(/called 35|CHAPTER 4\. THE RABBIT/);
    // Page 59 opens, under its running head, with "the conversation a little.", the end of a
    // sentence begun at the foot of page 58 (above its number, "67").
    const begun = (await chat({ query: 'the conversation a little' })).body.data;
    expect(begun.answer).toContain('‘The game’s going on rather better now,’ she said, by way of keeping up the conversation a little.');
    expect(begun.answer).not.toMatch(/67 the conversation|STORY the conversation/);
    // Page 44 ends within the Hatter's words, "…and I had to sing “Twinkle, twinkle, little bat!",
    // which page 45 closes: "How I wonder what you’re at!” You know the song, perhaps?’".
    const song = (await chat({ query: 'What did the Hatter have to sing at the great concert given by the Queen of Hearts?' })).body.data;
    expect(song.answer).toContain('I had to sing “Twinkle, twinkle, little bat! How I wonder what you’re at!” You know the song, perhaps?’');
  });

  it('recall answers from one asset only, with the moments', async () => {
    const r = await t.api('POST', `/recall/${id.alice}/ask`, { key, json: { query: 'Would the fall never come to an end?' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ video_id: id.alice, evidence: 'found' });
    expect(r.body.data.moments[0]).toMatchObject({ page: 5, timestamp: 4 });
    expect(r.body.data.answer).toMatch(/Would the fall NEVER come to an end!/);
    const elsewhere = await t.api('POST', `/recall/${id.group}/ask`, { key, json: { query: 'Would the fall never come to an end?' } });
    expect(elsewhere.body.data).toMatchObject({ evidence: 'none', answer: NO_EVIDENCE, moments: [] });
  });

  it('answers about a named person from their appearances', async () => {
    const d = (await chat({ query: 'When does John Schneider appear?' })).body.data;
    expect(d).toMatchObject({ evidence: 'found', question_type: 'when' });
    expect(d.answer).toMatch(/^John Schneider appears in /);
    const cited = d.citations.map((c: { video_id: string }) => c.video_id).sort();
    expect(cited).toEqual([id.john0, id.john1, id.john2].sort());
    expect(d.citations[0].region).toMatchObject({ label: 'John Schneider', source: 'people' });
  });

  it('says plainly when the index holds no evidence', async () => {
    for (const q of ['What is the capital of Peru?', 'the of and']) {
      const d = (await chat({ query: q })).body.data;
      expect(d, q).toMatchObject({ evidence: 'none', answer: NO_EVIDENCE, citations: [] });
    }
  });

  it('counts from the index: faces in a photo, faces on a page', async () => {
    const photo = (await t.api('POST', `/recall/${id.group}/ask`, { key, json: { query: 'How many faces are in it?' } })).body.data;
    expect(photo).toMatchObject({ question_type: 'how_many', answer: '3 faces in sample1.jpg [1].' });
    expect(photo.moments[0].region).toBeTruthy();
    const page = (await t.api('POST', `/recall/${id.alice}/ask`, { key, json: { query: 'How many faces on page 3?' } })).body.data;
    expect(page.answer).toBe('0 faces on page 3 in carroll-wonderland.pdf.');
  });

  it('caps the answer at max_tokens and keeps only citations still in it', async () => {
    const d = (await chat({ query: 'Alice rabbit hole', max_tokens: 16 })).body.data;
    expect(d.truncated).toBe(true);
    expect(d.answer.split(/\s+/).length).toBeLessThanOrEqual(13);
    for (const c of d.citations) expect(d.answer).toContain(`[${c.n}]`);
  });

  it('validates: 422 empty query, 404 unknown or foreign ids; read scope suffices', async () => {
    expect((await chat({ query: '' })).status).toBe(422);
    expect((await t.api('POST', `/recall/${id.alice}/ask`, { key, json: { query: '   ' } })).status).toBe(422);
    expect((await t.api('POST', '/recall/vid_nope/ask', { key, json: { query: 'x' } })).status).toBe(404);
    const stranger = t.key('strangers', ['read']);
    expect((await t.api('POST', `/recall/${id.alice}/ask`, { key: stranger, json: { query: 'Alice' } })).status).toBe(404);
    expect((await chat({ query: 'Alice', video_ids: [id.alice] }, stranger)).status).toBe(404);
    expect((await chat({ query: 'Alice' }, stranger)).body.data.evidence).toBe('none');
    expect((await chat({ query: 'Alice', video_ids: [id.alice] }, t.key('reading', ['read']))).status).toBe(200);
  });

  it('streams as server-sent events (POST /chat/stream): without a language model, one answer event equal to POST /chat', async () => {
    const body = { query: 'What did Alice think after such a fall?' };
    const res = await fetch(`${t.url}/api/v1/chat/stream`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .trim()
      .split('\n\n')
      .map((e) => ({ event: /^event: (.+)$/m.exec(e)?.[1], data: JSON.parse(/^data: (.+)$/m.exec(e)?.[1] ?? 'null') }));
    expect(events.map((e) => e.event)).toEqual(['answer']);
    const plain = (await chat(body)).body.data;
    expect(events[0].data).toEqual(plain);
    expect(plain).toMatchObject({ composer: 'extractive', stopped: false });
    // A bad request is refused before the stream starts, with the JSON error envelope.
    const foreign = await fetch(`${t.url}/api/v1/chat/stream`, {
      method: 'POST',
      headers: { 'X-API-Key': t.key('strangers', ['read']), 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'Alice', video_ids: [id.alice] }),
    });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.code).toBe('not_found');
    const empty = await fetch(`${t.url}/api/v1/chat/stream`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: '{"query":""}',
    });
    expect(empty.status).toBe(422);
  });

  it('answers quickly', async () => {
    const times: number[] = [];
    const questions = ['What did the Cat say?', 'Who is the Queen of Hearts?', 'Where did Alice fall?', 'What did the Mock Turtle sing?'];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await chat({ query: questions[i % questions.length] });
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`chat latency p50 ${times[10].toFixed(1)} ms, max ${times[19].toFixed(1)} ms (20 questions over the indexed book)`);
    expect(times[10]).toBeLessThan(2000);
  });
});
