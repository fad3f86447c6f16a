// Answers written by a real local language model: Gemma 3 270M (GGUF Q4_K_M from PyPI; the base
// model, another build than the instruction-tuned one the manifest names, so imported by its
// interface), with the real sentence encoder for retrieval. POST /chat and /recall compose from the
// evidence with numbered citations of it, refuse without evidence, honour max_tokens, stream, stop.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getLlama, type LlamaModel } from 'node-llama-cpp';
import { startTestServer, tempDir, type TestServer } from '../test/helpers/server.ts';
import { corpus } from '../test/helpers/corpus.ts';
import { NO_EVIDENCE, NO_SUPPORTED_ANSWER } from '../server/answers/question.ts';
import { importWithCli, median } from './helpers.ts';

interface Event {
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  at: number;
}

describe('answers written by a real local language model', () => {
  const data = tempDir('mi-real-answers-');
  let t: TestServer;
  let key: string;
  let book: string;
  let vocab: LlamaModel;

  /** POST /chat/stream, read to its end (or aborted after `abortAfterChunks` chunks). */
  async function stream(body: unknown, abortAfterChunks?: number): Promise<Event[]> {
    const started = performance.now();
    const abort = new AbortController();
    const res = await fetch(`${t.url}/api/v1/chat/stream`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const events: Event[] = [];
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      // fetch types its body as a web ReadableStream, which Node iterates but the DOM types do not say.
      for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(bytes, { stream: true });
        let cut;
        while ((cut = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          events.push({ event: /^event: (.+)$/m.exec(block)![1], data: JSON.parse(/^data: (.+)$/m.exec(block)![1]), at: performance.now() - started });
          if (abortAfterChunks !== undefined && events.filter((e) => e.event === 'chunk').length >= abortAfterChunks) {
            abort.abort();
            return events;
          }
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
    return events;
  }

  beforeAll(async () => {
    expect(await importWithCli('all-MiniLM-L6-v2', inject('minilm'), data)).toContain('installed (pinned)');
    const printed = await importWithCli('gemma-3-270m-it', inject('gemma'), data);
    expect(printed).toContain('gemma-3-270m-it-Q4_K_M.gguf <- ');
    expect(printed).toContain('(interface)');
    expect(printed).toMatch(/installed \(imported: .*another build/);
    t = await startTestServer({ workers: 2 }, data);
    key = t.key('reader');
    book = (await t.index(key, corpus('docs/carroll-wonderland.pdf'))).video_id;
    const llama = await getLlama({ gpu: false, build: 'never' });
    vocab = await llama.loadModel({ modelPath: inject('gemma'), vocabOnly: true });
  });
  afterAll(async () => {
    await t?.close();
    await vocab?.dispose();
    fs.rmSync(data, { recursive: true, force: true });
  });

  it('says which build is installed', async () => {
    const models = (await t.api('GET', '/models', { key })).body.data.models;
    expect(models.find((m: { name: string }) => m.name === 'gemma-3-270m-it')).toMatchObject({ installed: true, build: 'imported', revision: null });
    expect(models.find((m: { name: string }) => m.name === 'all-MiniLM-L6-v2')).toMatchObject({ installed: true, build: 'pinned' });
  });

  it('writes an answer from the evidence with numbered citations of moments it was given, streamed as it is written', async () => {
    // The same questions every run; how many get an answer the evidence supports is reported.
    const questions = [
      'What was written on the little bottle?',
      'Why did the gardeners paint the roses?',
      'Who was holding up the Lizard Bill?',
      'What did the Dodo say about the prizes?',
      'Where did the White Rabbit keep his watch?',
      'What did the Mock Turtle learn at school?',
    ];
    const firstChunk: number[] = [];
    const rates: number[] = [];
    let cited = 0;
    for (const query of questions) {
      const events = await stream({ query, max_tokens: 160 });
      const kinds = events.map((e) => e.event);
      expect(kinds[0]).toBe('evidence');
      expect(kinds.at(-1)).toBe('answer');
      const chunks = events.filter((e) => e.event === 'chunk');
      expect(chunks.length).toBeGreaterThan(0);
      firstChunk.push(chunks[0].at - events[0].at);
      if (chunks.length > 1) rates.push((chunks.length - 1) / ((chunks.at(-1)!.at - chunks[0].at) / 1000));
      const given = events[0].data.moments as Array<{ n: number; video_id: string; page: number | null; snippet: string }>;
      const answer = events.at(-1)!.data;
      console.log(`Q: ${query}\n  written: ${chunks.map((c) => c.data.text).join('')}\n  answer: ${answer.answer}`);
      expect(answer).toMatchObject({ composer: 'generative', stopped: false });
      expect(given.length).toBeGreaterThan(0);
      for (const g of given) expect(g.video_id).toBe(book);
      // Every citation is a moment it was given, under the number it was given, and is in the text.
      for (const c of answer.citations) {
        const g = given.find((x) => x.n === c.n);
        expect(g, `citation [${c.n}] was not given`).toBeDefined();
        expect(c).toMatchObject({ video_id: g!.video_id, page: g!.page });
        expect(answer.answer).toContain(`[${c.n}]`);
      }
      for (const m of answer.answer.matchAll(/\[(\d+)\]/g)) expect(answer.citations.map((c: { n: number }) => c.n)).toContain(Number(m[1]));
      if (answer.evidence === 'found') {
        expect(answer.citations.length).toBeGreaterThan(0);
        cited++;
      } else {
        // What it wrote was not held by the evidence: refused, nothing cited.
        expect(answer).toMatchObject({ answer: NO_SUPPORTED_ANSWER, citations: [] });
      }
      // The same answer without streaming.
      const plain = (await t.api('POST', '/chat', { key, json: { query, max_tokens: 160 } })).body.data;
      expect(plain.answer).toBe(answer.answer);
    }
    console.log(
      `language model on this CPU (gemma-3-270m Q4_K_M base model): ${cited} of ${questions.length} answers supported by the evidence (the rest refused by the grounding check); first chunk after the evidence ${median(firstChunk).toFixed(0)} ms (median; the first includes loading the model: ${firstChunk[0].toFixed(0)} ms), ${median(rates).toFixed(1)} chunks/s`,
    );
    expect(cited).toBeGreaterThanOrEqual(1);
  });

  it('recall answers from one asset with the moments it cites', async () => {
    const r = await t.api('POST', `/recall/${book}/ask`, { key, json: { query: 'What was written on the little bottle?' } });
    expect(r.status).toBe(200);
    expect(r.body.data.composer).toBe('generative');
    for (const m of r.body.data.moments) {
      expect(m.video_id).toBe(book);
      expect(r.body.data.answer).toContain(`[${m.n}]`);
    }
  });

  it('refuses when the index holds no evidence, without asking the model', async () => {
    const events = await stream({ query: 'What is the capital of Peru?' });
    expect(events.map((e) => e.event)).toEqual(['answer']);
    expect(events[0].data).toMatchObject({ answer: NO_EVIDENCE, evidence: 'none', citations: [], composer: 'generative' });
  });

  it('honours max_tokens', async () => {
    const query = 'What happened to Alice after she drank from the little bottle?';
    for (const max_tokens of [24, 48]) {
      const r = await t.api('POST', '/chat', { key, json: { query, max_tokens } });
      if (r.status === 422) {
        expect(r.body.error.message).toMatch(/max_tokens is too small/);
        continue;
      }
      expect(r.status).toBe(200);
      // The answer keeps whole sentences of what was written (the grounding may add a closing period).
      expect(vocab.tokenize(r.body.data.answer).length).toBeLessThanOrEqual(max_tokens + 1);
    }
  });

  it('stops writing when the client goes away', async () => {
    const events = await stream({ query: 'Tell me everything about the Mock Turtle and the Gryphon.', max_tokens: 2000 }, 2);
    expect(events.filter((e) => e.event === 'chunk')).toHaveLength(2);
    // Another question is answered at once: the model is no longer writing the abandoned answer
    // (2000 tokens would take it a minute here).
    const t0 = performance.now();
    const r = await t.api('POST', '/chat', { key, json: { query: 'What was written on the little bottle?', max_tokens: 40 } });
    expect(r.status === 200 || r.status === 422).toBe(true);
    expect(performance.now() - t0).toBeLessThan(15_000);
  });
});
