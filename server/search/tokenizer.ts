// One tokenizer for search, the lexical index's helpers and answers: words are runs of letters,
// digits and combining marks, lower-cased (as FTS5's unicode61 tokenizer splits them).
export const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** A query keeps at most this many distinct words. */
export const MAX_TERMS = 32;

/** Sentences of a text: runs ending in . ! ? … with any closing quote or bracket, and the rest. */
export function sentences(text: string): string[] {
  return sentenceSpans(text).map((s) => s.text);
}

/** The same sentences with where each stands in the text (`start` inclusive, `end` exclusive, trimmed). */
export function sentenceSpans(text: string): Array<{ text: string; start: number; end: number }> {
  const out: Array<{ text: string; start: number; end: number }> = [];
  for (const m of text.matchAll(/[^.!?…]+[.!?…]+["'’”)\]]*|[^.!?…]+$/g)) {
    const lead = m[0].length - m[0].trimStart().length;
    const t = m[0].trim();
    if (t) out.push({ text: t, start: m.index + lead, end: m.index + lead + t.length });
  }
  return out.length || !text.trim() ? out : [{ text: text.trim(), start: 0, end: text.length }];
}

export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The distinct words of a query, in order. */
export function queryTerms(query: string): string[] {
  return [...new Set(words(query))].slice(0, MAX_TERMS);
}

/** Character ranges of the given words in a text (whole words, case-insensitive). */
export function highlights(text: string, terms: readonly string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    if (terms.includes(m[0])) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

/** An FTS5 expression matching any of the words (each quoted, so no word is read as an operator). */
export function anyOf(terms: readonly string[]): string {
  return terms.map((t) => `"${t}"`).join(' OR ');
}

/** A file name as words: "holiday_2024-beach.jpg" is found by "holiday beach". */
export function fileNameWords(fileName: string): string {
  return `${fileName} ${fileName.replace(/\.[^.]+$/, '').replace(/[_\-.]+/g, ' ')}`;
}
