// The second pass (`rerank: true`): on each piece of evidence, the share of the query's words it
// holds, the exact phrase and the proximity of the words; on each moment, how many kinds of
// evidence agree on it.
import { words } from './tokenizer.ts';

/**
 * The boost of one piece of text: 1 + the share of the query's words it holds, + 2 for the exact
 * phrase (the query as written is the strongest sign), + up to 0.5 for proximity (the words found,
 * over the span of words that holds them all: 0.5 when they stand together).
 */
export function rerankBoost(text: string, terms: string[], phrase: string): number {
  const lower = text.toLowerCase();
  const tokens = words(lower);
  const found = terms.filter((t) => tokens.includes(t));
  let proximity = 0;
  if (found.length > 1) {
    // Smallest window of tokens holding every found term (two pointers).
    const need = new Set(found);
    const count = new Map<string, number>();
    let have = 0;
    let best = Infinity;
    for (let lo = 0, hi = 0; hi < tokens.length; hi++) {
      if (need.has(tokens[hi])) {
        count.set(tokens[hi], (count.get(tokens[hi]) ?? 0) + 1);
        if (count.get(tokens[hi]) === 1) have++;
      }
      while (have === need.size) {
        best = Math.min(best, hi - lo + 1);
        const w = tokens[lo++];
        if (need.has(w)) {
          const left = (count.get(w) ?? 1) - 1;
          count.set(w, left);
          if (left === 0) have--;
        }
      }
    }
    proximity = 0.5 * (found.length / best);
  }
  return 1 + found.length / terms.length + (terms.length > 1 && lower.includes(phrase) ? 2 : 0) + proximity;
}

/** Cross-modal agreement: a moment that several kinds of evidence point at rises by a quarter per extra kind. */
export function agreementBoost(evidence: ReadonlyArray<{ retriever: string; modality: string }>): number {
  return 1 + 0.25 * (new Set(evidence.map((x) => `${x.retriever}:${x.modality}`)).size - 1);
}
