// The second pass (rerank: true): exact phrase, query coverage, proximity and cross-modal agreement
// move the moment that holds the query as written above one that only repeats its words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_ONLY, startTestServer, type TestServer } from './helpers/server.ts';
import { rerankBoost } from '../server/search/rerank.ts';

describe('rerank', () => {
  it('rewards the exact phrase, coverage and words that stand together', () => {
    const terms = ['white', 'rabbit'];
    const together = rerankBoost('The White Rabbit hurried by.', terms, 'white rabbit');
    const apart = rerankBoost('A white cloth lay on the table, and far off a rabbit slept.', terms, 'white rabbit');
    const one = rerankBoost('A white cloth.', terms, 'white rabbit');
    expect(together).toBeCloseTo(1 + 1 + 2 + 0.5, 5);
    expect(apart).toBeGreaterThan(one);
    expect(together).toBeGreaterThan(apart);
    expect(one).toBeCloseTo(1.5, 5);
  });

  describe('through /search', () => {
    let t: TestServer;
    let key: string;
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      t = await startTestServer();
      key = t.key('rerank');
      const repeats = 'Queen and hearts: the queen of spades, the hearts of gold.';
      ids.repeats = (await t.index(key, { name: 'repeats.txt', data: Buffer.from(repeats) }, JSON.parse(EXTRACT_ONLY))).video_id;
      ids.phrase = (
        await t.index(
          key,
          { name: 'phrase.txt', data: Buffer.from('Everyone feared the queen of hearts and her temper at the long table of the old palace.') },
          JSON.parse(EXTRACT_ONLY),
        )
      ).video_id;
    });
    afterAll(() => t.close());

    it('puts the passage holding the phrase first only with rerank, and names the pass in the recipe', async () => {
      const plain = (await t.api('POST', '/search', { key, json: { query: 'queen of hearts' } })).body.data;
      const reranked = (await t.api('POST', '/search', { key, json: { query: 'queen of hearts', rerank: true } })).body.data;
      expect(plain.hits[0].video_id).toBe(ids.repeats);
      expect(reranked.hits[0].video_id).toBe(ids.phrase);
      expect(reranked.recipe).toContain('rerank(phrase,coverage,proximity,agreement)');
      expect(plain.recipe).not.toContain('rerank');
    });
  });
});
