import { describe, expect, it } from 'vitest';
import { longSReader } from './long-s.ts';

/** Each text read as one page. */
const read = (...texts: string[]) => {
  const r = longSReader(texts);
  return texts.map((t) => r(t));
};

describe('the long s read as an f', () => {
  it('reads it as an s in English words that are no words with the f', () => {
    const [r] = read('The firft and moft faithful fervants of the ftate were his brothers, who kept his lands againft all purpofes of the King.');
    expect(r.text).toBe('The first and most faithful servants of the state were his brothers, who kept his lands against all purposes of the King.');
    expect(r.changed).toBe(6);
  });

  it('reads French with French words: "eft" is English (a newt), and "est" on a French page; words that are French words stay', () => {
    const page = ['Il eft néceffaire de fuivre les ordres, et de paffer la rivière avec les chevaux.', 'Les foldats fe font affemblés fur la place.'];
    expect(read(...page).map((r) => r.text)).toEqual([
      'Il est nécessaire de suivre les ordres, et de passer la rivière avec les chevaux.',
      // "font" (they do) and "fur" (as in "au fur et à mesure") are French words: left as read.
      'Les soldats se font assemblés fur la place.',
    ]);
    // The same words on an English page are English.
    expect(read('the eft swims in the pond, as the newts of these ponds do').map((r) => r.text)).toEqual([
      'the eft swims in the pond, as the newts of these ponds do',
    ]);
  });

  it('leaves words that are words as read, a capital F, an f that ends a word, and a word with two readings', () => {
    const text = 'The fat cat sat on the roof of the effect, Fuller and Fiske first found it, as fame is found.';
    expect(read(text)[0]).toEqual({ text, changed: 0 });
    // "fift": "sift" and "fist" are both words, one change each.
    expect(read('a fift of the flowers is sifted and the first of it is kept for his friends')[0].text).toContain(' fift ');
  });

  it('corrects nothing on a page in neither language (Latin words read as English would be)', () => {
    const latin = 'Sol enim in medio fuit, quafi rex fupra omnia, et femper lucet; ita dicunt philosophi veteres, Solis cursus et stellarum motus.';
    expect(read(latin)[0]).toEqual({ text: latin, changed: 0 });
  });

  it('keeps modern text as it is (the whole of a text without a long s)', () => {
    const modern = [
      'Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing to do.',
      'Offsets of a file, its first fifty fields, fifteen staff files and a buffer full of figures.',
    ];
    expect(read(...modern).map((r) => r.changed)).toEqual([0, 0]);
  });
});
