// WordNet's related words as search widens a query by them: the kind of thing a word names read
// from its definition's head, and names (people, places) kept as they are.
import { describe, expect, it } from 'vitest';
import { genusOf, wordnet } from './wordnet.ts';

const broader = (w: string) => [...wordnet.expand(w)].filter(([, r]) => r === 'broader').map(([k]) => k);

describe('the head of a definition', () => {
  const nouns = new Set([
    'vehicle',
    'wheels',
    'four',
    'cat',
    'mammal',
    'fur',
    'ability',
    'roar',
    'member',
    'genus',
    'canis',
    'piece',
    'furniture',
    'room',
    'building',
  ]);
  const isNoun = (w: string) => nouns.has(w);

  it('is the last noun before the words that qualify it', () => {
    expect(genusOf('a motor vehicle with four wheels', isNoun)).toBe('vehicle');
    expect(genusOf('young domestic cat', isNoun)).toBe('cat');
    expect(genusOf('feline mammal usually having thick soft fur and no ability to roar', isNoun)).toBe('mammal');
    expect(genusOf('a room or building equipped with one or more toilets', isNoun)).toBe('room');
  });

  it('looks past a word that names a part or kind of what follows', () => {
    expect(genusOf('a member of the genus Canis', isNoun)).toBe('canis');
    expect(genusOf('a piece of furniture having a smooth flat top', isNoun)).toBe('furniture');
  });

  it('is never a number', () => {
    expect(genusOf('four wheels', isNoun)).toBe('wheels');
    expect(genusOf('four', isNoun)).toBeNull();
  });
});

describe('related words', () => {
  it('widen a word to the kind of thing it is, not to words its definition happens to hold', () => {
    expect(broader('car')).toContain('vehicle');
    expect(broader('car')).not.toContain('four');
    expect(broader('cat')).toEqual(expect.arrayContaining(['mammal', 'feline']));
    expect(broader('tree')).not.toContain('crown');
    expect(broader('phone')).not.toContain('back');
  });

  it('are none for a name: Lincoln the president lends neither "president" nor "lawyer", Paris not "france"', () => {
    expect([...wordnet.expand('lincoln').keys()]).not.toEqual(expect.arrayContaining(['president']));
    expect([...wordnet.expand('lincoln').keys()]).not.toContain('lawyer');
    expect([...wordnet.expand('paris').keys()]).not.toContain('france');
  });

  it('know a name, of someone or somewhere, from a word that is none', () => {
    for (const w of ['john', 'lincoln', 'paris', 'turkey']) expect(wordnet.isName(w), w).toBe(true);
    for (const w of ['coffee', 'cat', 'apple', 'queen']) expect(wordnet.isName(w), w).toBe(false);
  });
});
