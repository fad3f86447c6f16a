// One tokenizer for search, the lexical index's helpers and answers: words are runs of letters,
// digits and combining marks, lower-cased (as FTS5's unicode61 tokenizer splits them).
export const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** A query keeps at most this many distinct words. */
export const MAX_TERMS = 32;

/**
 * Sentences of a text, as Unicode's sentence boundaries find them (Intl.Segmenter, ICU's rules): a
 * full stop in a number, a version or an address ("the 2.0 release", "debian.org") or followed by a
 * lower-case word ("e.g. the") ends none; . ! ? and the danda (।) with any closing quote or bracket
 * end one, unless the next word is in lower case (dialogue: "‘What?’ said Alice.") or, asked for, a
 * quotation is still open ("‘If you do. I’ll set Dinah at you!’"); an ellipsis, written "…" or
 * "...", ends one where a capital follows ("She left… Then he came.", not "I think… maybe not"). A
 * line break ends none (a passage's lines are one text), and neither does the full stop of a title
 * before a name ("Mr. Smith", "Dr. Jones").
 */
export function sentences(text: string, opts: SentenceOptions = {}): string[] {
  return sentenceSpans(text, opts).map((s) => s.text);
}

export interface SentenceOptions {
  /**
   * A sentence spoken within quotation marks goes on to the mark that closes them ("‘If you do.
   * I’ll set Dinah at you!’" is one): for an answer's sentences, read whole. Not for the windows
   * of text that search by meaning embeds, whose sentences were measured without it (two tuning
   * questions of test-real/encoder.test.ts fell from rank 1 to 2 with it).
   */
  quotations?: boolean;
}

let sentenceRules: Intl.Segmenter | null = null;
/**
 * ICU's sentence rules, made on first use: making them takes ≈ 10 ms, which every process importing
 * this module (the command line, the service, each indexer process) paid as it started, where only
 * answers and embeddings split sentences.
 */
const sentenceSegmenter = (): Intl.Segmenter => (sentenceRules ??= new Intl.Segmenter('en', { granularity: 'sentence' }));
/** Abbreviations that end in a full stop but not a sentence: titles before a name, references to a figure or volume. */
const NOT_AN_END = /(?:^|[\s(])(?:Mr|Mrs|Ms|Mx|Dr|Prof|Rev|Fr|St|Mt|Capt|Col|Gen|Lt|Sgt|Fig|Figs|Eq|Vol|cf|vs)\.$/;

/** A sentence goes on after ! or ? where the next word is in lower case ("‘What?’ said Alice."). */
const LOWER_NEXT = /^[\s"'‘“([]*\p{Ll}/u;

/** A quotation holds a sentence open for this many characters at most (a mark never closed ends nothing). */
const MAX_QUOTED_CHARS = 400;

/** Whether a text leaves a quotation open: more ‘ or “ than the ’ or ” that close them (an apostrophe between letters, as in "I’ll", closes none). */
function quoteOpen(text: string): boolean {
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  return count(/“/g) > count(/”/g) || count(/‘/g) > count(/(?<!\p{L})’|’(?!\p{L})/gu);
}

/** The same sentences with where each stands in the text (`start` inclusive, `end` exclusive, trimmed). */
export function sentenceSpans(text: string, opts: SentenceOptions = {}): Array<{ text: string; start: number; end: number }> {
  const out: Array<{ text: string; start: number; end: number }> = [];
  // Line breaks read as spaces (the same length: each sentence's place in the text is kept).
  let start = -1;
  // An ellipsis as one character reads as a full stop (Unicode's rules end a sentence at "..." but
  // not at "…").
  for (const { segment, index } of sentenceSegmenter().segment(text.replace(/[\r\n\u2028\u2029\u0085\v\f]/g, ' ').replace(/\u2026/g, '.'))) {
    if (start < 0) start = index;
    const end = index + segment.length;
    if (end < text.length && (NOT_AN_END.test(segment.trimEnd()) || LOWER_NEXT.test(text.slice(end, end + 8)))) continue;
    if (opts.quotations && end < text.length && end - start < MAX_QUOTED_CHARS && quoteOpen(text.slice(start, end))) continue;
    const t = text.slice(start, end);
    const lead = t.length - t.trimStart().length;
    const trimmed = t.trim();
    if (trimmed) out.push({ text: trimmed, start: start + lead, end: start + lead + trimmed.length });
    start = -1;
  }
  return out;
}

/**
 * Whether a text's last sentence is spoken within a quotation not closed by its end: the page turns
 * in the middle of someone's words ("…and I had to sing “Twinkle, twinkle, little bat!" at the foot
 * of a page, "How I wonder what you’re at!” You know the song, perhaps?’" on the next).
 */
export function endsInQuotation(text: string): boolean {
  const last = sentenceSpans(text, { quotations: true }).at(-1);
  return last !== undefined && last.end - last.start < MAX_QUOTED_CHARS && quoteOpen(last.text);
}

/**
 * Whether a passage reads as a page's running head or foot, or its number, taken alone: short, in
 * capitals or figures only ("35", "68 CHAPTER 9. THE MOCK TURTLE’S STORY"); a script without
 * capitals (Devanagari) is never taken for one.
 */
export function looksLikeRunningHead(text: string): boolean {
  if (text.length > 80 || /\p{Ll}/u.test(text)) return false;
  return /\p{Lu}/u.test(text) ? !/[^\p{Lu}\p{N}\p{P}\p{S}\p{M}\s]/u.test(text) : /^[\p{N}\p{P}\s]+$/u.test(text);
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
