// The long s (ſ) of books printed before about 1800 ("ſuivre", "moſt"): both readers write it as
// an f ("fuivre", "moft"), so a search for "suivre" or "most" would not find the page. A word read
// with an f is written with an s where it is no word of the page's language and the same word with
// one or more of its f read as s is one, the fewest changed: "fuivre" → "suivre", "paffer" →
// "passer", "firft" → "first". Only a lower-case f that does not end its word is a candidate: the
// long s had no capital and was not used at the end of a word. A word that is itself a word of the
// language ("fi", "fat", "effet") is left as read, and so is a word with more than one way of
// being corrected with as few changes.
//
// The language of a picture, page or frame is the one of whose words its text holds the most
// (English or French, the word lists of an-array-of-english-words and an-array-of-french-words,
// MIT): "eft" is an English word (a newt) and a French misreading of "eſt". The lists are read when
// a text first holds a candidate, and let go after a minute without use.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const WORD_LISTS = { en: 'an-array-of-english-words', fr: 'an-array-of-french-words' } as const;
type Language = keyof typeof WORD_LISTS;
/** At most this many of a word's f are tried as s (2^n readings). */
const MAX_CANDIDATES = 6;
/**
 * Share of a text's words (with an s, without an f) that must be words of its language. Chosen on
 * pages of Leptonica's test images (tuning, not the measured photos): of their words English, 0.65
 * on an English page printed with the long s (in black letter, read with many errors), 0.89–0.91
 * on English pages without it, 0.05–0.38 on Latin and Italian pages.
 */
const MIN_SHARE = 0.5;
/** The word lists are let go after this long unused. */
const IDLE_MS = 60_000;

/** Words in one string, sorted, looked up by halves: ≈ 4 MB of heap for both lists, against 22 MB as Sets. */
class WordList {
  private readonly text: string;
  private readonly starts: Int32Array;
  constructor(words: string[]) {
    words.sort();
    this.text = words.join('\n');
    this.starts = new Int32Array(words.length + 1);
    let at = 0;
    for (const [i, w] of words.entries()) {
      this.starts[i] = at;
      at += w.length + 1;
    }
    this.starts[words.length] = at;
  }
  has(word: string): boolean {
    let lo = 0;
    let hi = this.starts.length - 2;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const w = this.text.slice(this.starts[mid], this.starts[mid + 1] - 1);
      if (w === word) return true;
      if (w < word) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}

let lists: Map<Language, WordList> | null = null;
let idle: NodeJS.Timeout | null = null;

/** Each language's words that hold an f or an s (the only ones looked up), in lower case. */
function wordLists(): Map<Language, WordList> {
  if (idle) clearTimeout(idle);
  idle = setTimeout(() => {
    lists = null;
    idle = null;
  }, IDLE_MS).unref();
  if (lists) return lists;
  lists = new Map();
  for (const [language, pkg] of Object.entries(WORD_LISTS) as Array<[Language, string]>) {
    // Read, not required: require would keep the whole list in its cache.
    const words = JSON.parse(fs.readFileSync(require.resolve(`${pkg}/index.json`), 'utf8')) as string[];
    lists.set(language, new WordList(words.filter((w) => w.includes('f') || w.includes('s'))));
  }
  return lists;
}

const WORDS = /\p{L}+/gu;

/** Positions of the f that may be a long s: lower case, not the word's last letter. */
function candidates(word: string): number[] {
  const at: number[] = [];
  for (let i = 0; i < word.length - 1 && at.length < MAX_CANDIDATES; i++) if (word[i] === 'f') at.push(i);
  return at;
}

/** The word with the fewest of its candidate f read as s that is a word of `known`; null if none or several. */
function corrected(word: string, known: WordList): string | null {
  const lower = word.toLowerCase();
  if (known.has(lower)) return null;
  const at = candidates(word);
  // Subsets of the candidates by size: one f changed, then two, and so on.
  for (let size = 1; size <= at.length; size++) {
    const found: string[] = [];
    for (let mask = 1; mask < 1 << at.length; mask++) {
      if (popcount(mask) !== size) continue;
      const chars = word.split(''); // by code unit, as `candidates` counts
      at.forEach((p, i) => {
        if (mask & (1 << i)) chars[p] = 's';
      });
      const reading = chars.join('');
      if (known.has(reading.toLowerCase())) found.push(reading);
    }
    if (found.length) return found.length === 1 ? found[0] : null;
  }
  return null;
}

function popcount(n: number): number {
  let c = 0;
  for (; n; n &= n - 1) c++;
  return c;
}

/**
 * The language of whose words `texts` hold the most, where its words are at least half of them;
 * null where no language is (Latin, Italian: their words are not corrected with English or French
 * ones). Counted on the words with an s and no f, the only ones the lists hold that a long s read
 * as an f cannot have changed.
 */
function languageOf(texts: string[], known: Map<Language, WordList>): Language | null {
  const hits = new Map<Language, number>();
  let words = 0;
  for (const text of texts)
    for (const [w] of text.matchAll(WORDS)) {
      const lower = w.toLowerCase();
      if (lower.length < 2 || !lower.includes('s') || lower.includes('f')) continue;
      words++;
      for (const [language, list] of known) if (list.has(lower)) hits.set(language, (hits.get(language) ?? 0) + 1);
    }
  let best: Language | null = null;
  for (const [language, n] of hits) if (n > (best ? (hits.get(best) ?? 0) : 0)) best = language;
  return best && (hits.get(best) ?? 0) >= MIN_SHARE * words ? best : null;
}

/**
 * Reads the long s in texts that are one picture, page or frame (its lines, paragraphs): a function
 * that gives each of them with its words corrected, and how many of its words it changed.
 */
export function longSReader(texts: string[]): (text: string) => { text: string; changed: number } {
  if (!texts.some((t) => [...t.matchAll(WORDS)].some(([w]) => candidates(w).length > 0))) return (text) => ({ text, changed: 0 });
  const known = wordLists();
  const language = languageOf(texts, known);
  if (!language) return (text) => ({ text, changed: 0 });
  const words = known.get(language)!;
  const memo = new Map<string, string | null>();
  return (text) => {
    let changed = 0;
    const out = text.replace(WORDS, (w) => {
      if (candidates(w).length === 0) return w;
      if (!memo.has(w)) memo.set(w, corrected(w, words));
      const c = memo.get(w) ?? null;
      if (c === null) return w;
      changed++;
      return c;
    });
    return { text: out, changed };
  };
}
