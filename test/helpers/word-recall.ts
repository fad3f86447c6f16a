import { inReadingOrder } from '../../server/ml/photo-text.ts';

// Word recall, as the photo-text measurements score a reading: the reference's words found among
// the words read, each word read counting once. Words are compared by their letters and digits in
// lower case (`letters`), or as search compares them (`search`): also without the diacritics of
// Latin letters and with the long s as s, as the full-text index's tokenizer folds them (unicode61,
// remove_diacritics 2: migration 0007; ligatures such as ﬁ it does not fold, nor are they folded
// here), so that a word counts where a search for it finds the photo.
export type WordMatch = 'letters' | 'search';
const words = (s: string, match: WordMatch) =>
  (match === 'search'
    ? s
        .replace(/ſ/g, 's')
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
    : s
  )
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''))
    .filter(Boolean);

export function wordRecall(read: string, truth: string, match: WordMatch = 'letters'): { found: number; of: number } {
  const have = new Map<string, number>();
  for (const w of words(read, match)) have.set(w, (have.get(w) ?? 0) + 1);
  let found = 0;
  const want = words(truth, match);
  for (const w of want) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      found++;
      have.set(w, n - 1);
    }
  }
  return { found, of: want.length };
}

/** Text regions (fractions of the picture) as text, top to bottom, left to right within a line's height. */
export function regionsText(regions: Array<{ text: string; x: number; y: number; w: number; h: number }>): string {
  return inReadingOrder(regions, (t) => ({ cx: t.x + t.w / 2, cy: t.y + t.h / 2, thickness: t.h }))
    .map((t) => t.text)
    .join('\n');
}
