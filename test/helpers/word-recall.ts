import { inReadingOrder } from '../../server/ml/photo-text.ts';

// Word recall, as the photo-text measurements score a reading: the reference's words (lower case,
// letters and digits only) found among the words read, each word read counting once.
const words = (s: string) =>
  s
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''))
    .filter(Boolean);

export function wordRecall(read: string, truth: string): { found: number; of: number } {
  const have = new Map<string, number>();
  for (const w of words(read)) have.set(w, (have.get(w) ?? 0) + 1);
  let found = 0;
  const want = words(truth);
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
