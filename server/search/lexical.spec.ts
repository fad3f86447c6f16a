import { describe, expect, it } from 'vitest';
import { askedWords, heldAsWord, heldWords } from './lexical.ts';
import { Moments } from './moments.ts';
import type { EntryHit } from '../store/search.repo.ts';

describe('the query words an entry holds', () => {
  it('counts the words that say something, or all of them where none does', () => {
    expect(askedWords(['the', 'cat', 'in', 'hat'])).toEqual(['cat', 'hat']);
    expect(askedWords(['to', 'be'])).toEqual(['to', 'be']);
  });

  it('finds each word whole, accents aside, and a related word for the word it stands for', () => {
    const held = heldWords(['people', 'smiling', 'café'], new Map([['person', ['people']]]));
    expect(held('face happy smiling person adult')).toEqual(['smiling', 'people']);
    expect(held('Cafe de Flore')).toEqual(['café']);
    expect(held('CAFÉ')).toEqual(['café']);
    // Whole words only: "smilingly" and "peoples" hold neither.
    expect(held('smilingly the peoples')).toEqual([]);
  });

  it('looks for nothing in a query of one word', () => {
    expect(heldWords(['cat'], new Map())('cat')).toEqual([]);
  });
});

describe('a related word held as a word, not only as a name', () => {
  it('is held in lower case, in capitals, at the start of a sentence, or in a heading', () => {
    expect(heldAsWord('We climbed an alp above the village.', 'alp')).toBe(true);
    expect(heldAsWord('THE ROSE GARDEN', 'rose')).toBe(true);
    expect(heldAsWord('It rained. Puppies played in the yard.', 'puppies')).toBe(true);
    expect(heldAsWord('“Robins sang,” she said.', 'robins')).toBe(true);
    expect(heldAsWord('The Pool of Tears', 'pool')).toBe(true);
    expect(heldAsWord('‘Off with his head!’ shouted the Queen at once.', 'queen')).toBe(true);
    expect(heldAsWord('Ben is tall, and the ben above Ben’s house is taller.', 'ben')).toBe(true);
  });

  it('is not held where every time it is written capitalized within a sentence: a name', () => {
    expect(heldAsWord('Ben Collins led Debian from April 2001 until April 2002.', 'ben')).toBe(false);
    expect(heldAsWord('He said that Rose would come tomorrow.', 'rose')).toBe(false);
    expect(heldAsWord('the outlaw Robin Hood and his men', 'robin')).toBe(false);
    expect(heldAsWord('Samba 4.13', 'samba')).toBe(false);
  });
});

describe('moments weighed by the words their entries hold together', () => {
  const entry = (asset: string, text: string, modality = 'label'): EntryHit =>
    ({
      id: 0,
      asset_id: asset,
      kind: 'image',
      file_name: `${asset}.jpg`,
      workspace_id: 'w',
      stage: 'labels',
      modality,
      timestamp: 0,
      page: null,
      ref: null,
      region_id: null,
      text,
      rank: -1,
    }) as EntryHit;
  const held = heldWords(['people', 'smiling'], new Map());
  /** The moments offered `entries` ([entry, score, words it holds]) after weighing for `asked` words, best first, as [asset, score]. */
  const weighed = (asked: number, entries: Array<[EntryHit, number, string[]]>) => {
    const moments = new Moments((e) => e.asset_id);
    for (const [e, score, holds] of entries) moments.offer(e, score, 'lexical', undefined, holds);
    moments.coordinate(asked);
    return moments.ranked(false).map((m) => [m.entry.asset_id, Math.round(m.score * 100) / 100]);
  };

  it('lifts a moment whose entries hold every word above one whose best entry scores more', () => {
    const entries: Array<[EntryHit, number]> = [
      [entry('crowd', 'people'), 10],
      [entry('smile', 'people'), 8],
      [entry('smile', 'face happy smiling person', 'person'), 5],
    ];
    expect(
      weighed(
        2,
        entries.map(([e, score]) => [e, score, held(e.text)]),
      ),
    ).toEqual([
      ['smile', 8],
      ['crowd', 6.67],
    ]);
  });

  it('leaves the pages of documents as they are', () => {
    const page = (asset: string, text: string): EntryHit => ({ ...entry(asset, text, 'passage'), kind: 'document', page: 1 });
    expect(
      weighed(2, [
        [page('one', 'the people of the town'), 10, ['people']],
        [page('both', 'people'), 6, ['people']],
        [page('both', 'smiling'), 6, ['smiling']],
      ]),
    ).toEqual([
      ['one', 10],
      ['both', 6],
    ]);
  });

  it("shows a page by a passage of its body where its best is the running head, holding as many of the words, and keeps the page's score", () => {
    const page = (n: number, text: string, ref: number): EntryHit => ({ ...entry('book', text, 'passage'), kind: 'document', page: n, ref });
    const moments = new Moments((e) => `${e.asset_id}:${e.page}`);
    moments.offer(page(5, '14 CHAPTER 1. DOWN THE RABBIT-HOLE', 0), 9, 'lexical');
    moments.offer(page(5, 'was just in time to see it pop down a large rabbit-hole under the hedge.', 3), 6, 'lexical');
    moments.offer(page(5, 'the White Rabbit hurried by', 4), 7, 'lexical');
    moments.offer(page(9, '22 CHAPTER 2. BACK DOWN THE RABBIT-HOLE', 0), 8, 'lexical');
    moments.offer(page(9, 'the Rabbit came back', 2), 5, 'lexical');
    moments.showBody(['rabbit', 'hole']);
    const shown = moments.ranked(false).map((m) => [m.entry.page, m.entry.ref, m.score]);
    // Page 5 by its passage that holds both words (not the one that holds "rabbit" alone, though it
    // scores more); page 9 by its head, which no passage of its body beats on the words asked.
    expect(shown).toEqual([
      [5, 3, 9],
      [9, 0, 8],
    ]);
  });

  it('keeps the order of moments that hold as many words, and leaves a query of one word as it was', () => {
    const alike: Array<[EntryHit, number, string[]]> = [
      [entry('a', 'people'), 3, ['people']],
      [entry('b', 'people'), 4, ['people']],
    ];
    expect(weighed(1, alike)).toEqual([
      ['b', 4],
      ['a', 3],
    ]);
    expect(weighed(2, alike)).toEqual([
      ['b', 2.67],
      ['a', 2],
    ]);
  });
});
