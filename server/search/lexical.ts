// Lexical retrieval: BM25 over every indexed text (file names, passages, OCR, transcripts,
// labels…), widened by WordNet: related nouns the index holds, ranked below the words asked for.
import type { Store } from '../store/index.ts';
import type { EntryHit } from '../store/search.repo.ts';
import { wordnet, type Relation } from './wordnet.ts';
import { STOPWORDS } from './stopwords.ts';
import { anyOf, WORD, words } from './tokenizer.ts';
import { fold } from './interpret.ts';

/**
 * WordNet adds at most this many related words, none held by more than this share of the entries,
 * and all of them together held by at most this many entries per candidate a list may bring:
 * ranking the entries of related words costs in proportion to how many there are, and they rank
 * below the words asked for (at 100k assets, up to 16 related words of up to 6,000 entries each
 * took 15 ms of a query's median).
 */
const MAX_EXPANSIONS = 16;
const MAX_EXPANSION_SHARE = 0.02;
const EXPANSION_ENTRIES_PER_RESULT = 10;
const RELATION_WEIGHT: Record<Relation, number> = { synonym: 0.8, broader: 0.6, narrower: 0.6 };

export type Engine = 'arrow' | 'classic';

export interface Scope {
  workspaceIds: string[];
  assetId?: string;
  /** How many entries each list may bring. */
  limit: number;
}

/** A matching entry and the weight of the word that found it (1 for the query's own words). */
export interface Candidate {
  entry: EntryHit;
  weight: number;
}

export interface LexicalResult {
  candidates: Candidate[];
  /** Related words searched besides the query's, with their weight. */
  related: Map<string, number>;
  /** The query's words each related word stands for. */
  standsFor: Map<string, string[]>;
  /** The engine that answered, and why it is not the one asked for. */
  engine: Engine;
  fallback?: string;
}

/**
 * Related words (WordNet) of the query's words that the index holds, with their weight; and the
 * query's words each stands for. Names (`names`) are not widened.
 */
function expansions(store: Store, terms: string[], limit: number, names: ReadonlySet<string>): { related: Map<string, number>; from: Map<string, string[]> } {
  const related = new Map<string, number>();
  const from = new Map<string, string[]>();
  const widens = (t: string) => t.length >= 3 && /^[a-z]+$/.test(t) && !names.has(t);
  // Two words of the query that make one noun in WordNet ("hot dog", "living room", "swimming
  // pool") are widened as that noun (frankfurter, parlour, natatorium), and neither apart: "dog"
  // lends no puppy to "hot dog", nor "room" a kitchen to "living room".
  const inCompound = (t: string | undefined): t is string => t !== undefined && widens(t) && !STOPWORDS.has(t);
  const lemmas: Array<{ lemma: string; stands: string[] }> = [];
  for (let i = 0; i < terms.length; i++) {
    const [t, next] = [terms[i], terms[i + 1]];
    const compound = inCompound(t) && inCompound(next) ? wordnet.compound(t, next) : null;
    if (compound) lemmas.push({ lemma: compound, stands: [t, terms[++i]] });
    else if (widens(t)) lemmas.push({ lemma: t, stands: [t] });
  }
  for (const { lemma, stands } of lemmas) {
    for (const [w, r] of wordnet.expand(lemma)) {
      if (terms.includes(w)) continue;
      related.set(w, Math.max(related.get(w) ?? 0, RELATION_WEIGHT[r]));
      from.set(w, [...(from.get(w) ?? []), ...stands]);
    }
  }
  // Only words the index holds, and of those the most telling: a related word found in much of the
  // library adds noise and cost, not meaning.
  const counts = store.search.wordCounts([...related.keys()]);
  const common = Math.max(50, store.search.approximateSize() * MAX_EXPANSION_SHARE);
  // Closest relation first, then the rarest; a word whose entries would overrun the budget is
  // passed over for rarer ones after it.
  let budget = limit * EXPANSION_ENTRIES_PER_RESULT;
  const kept = [...related]
    .filter(([w]) => (counts.get(w) ?? Infinity) <= common)
    .sort((a, b) => b[1] - a[1] || (counts.get(a[0]) ?? 0) - (counts.get(b[0]) ?? 0))
    .filter(([w]) => {
      const n = counts.get(w) ?? 0;
      if (n > budget) return false;
      budget -= n;
      return true;
    })
    .slice(0, MAX_EXPANSIONS);
  return { related: new Map(kept), from };
}

/**
 * The best score of an entry holding each of `wanted` (query words), from entries in BM25 order (best
 * first): read until each is found, a word looked for in the lowercased text before the entry is
 * split into words (splitting every entry of a long list takes ≈ 10–12 ms for 2,000 passages of 40
 * words, the look ≈ 0.4 ms; a scratch script, medians of 15).
 */
function ownBest(entries: EntryHit[], wanted: Set<string>): Map<string, number> {
  const best = new Map<string, number>();
  for (const e of entries) {
    if (wanted.size === 0) break;
    const lower = e.text.toLowerCase();
    if (![...wanted].some((t) => lower.includes(t))) continue;
    const held = new Set(words(e.text));
    for (const t of wanted) {
      if (!held.has(t)) continue;
      best.set(t, -e.rank);
      wanted.delete(t);
    }
  }
  return best;
}

/**
 * The entries holding the query's words (`terms`, lowercased) and, below them, those holding their
 * related words. `names` are words that stand for a name here ("John" of a person named so), whose
 * related words ("toilet", "room") would only bring noise.
 */
export function lexical(store: Store, terms: string[], scope: Scope, requested: Engine, names: ReadonlySet<string> = new Set()): LexicalResult {
  const content = terms.filter((t) => !STOPWORDS.has(t));
  const expr = anyOf(content.length ? content : terms);
  let engine = requested;
  let fallback: string | undefined;
  let entries = store.search.match(expr, { ...scope, engine });
  if (entries.length === 0 && requested === 'classic') {
    const other = store.search.match(expr, { ...scope, engine: 'arrow' });
    if (other.length > 0) {
      engine = 'arrow';
      entries = other;
      fallback = 'classic holds nothing that matches: it searches only assets indexed by the deprecated tiers; arrow answered';
    }
  }
  const { related, from } = expansions(store, terms, scope.limit, names);
  const expanded = related.size ? store.search.match(anyOf([...related.keys()]), { ...scope, engine }) : [];
  // A related word ranks below the word it stands for: BM25 weighs a rare word heavily, and a
  // related word is often rarer than the query's own ("tomcat" in one line against "cat" in many),
  // so an entry found by it scores at most what the best entry holding that word scores, before
  // the relation's weight. A related word of a word found nowhere ("felines" in a book that says
  // "cat") is what stands for it, and keeps its own score.
  const bestOwn = ownBest(entries, expanded.length ? new Set([...related.keys()].flatMap((w) => from.get(w) ?? [])) : new Set());
  const weighed = (entry: EntryHit) => {
    // Only a related word the entry holds as a word: "Ben Collins" holds no mountain.
    let named = false;
    const held = ACCENTED.test(entry.text) ? words(fold(entry.text)) : words(entry.text);
    const [word, weight] = held.reduce<[string | null, number]>(
      (best, w) => {
        if ((related.get(w) ?? 0) <= best[1]) return best;
        if (heldAsWord(entry.text, w)) return [w, related.get(w)!];
        named = true;
        return best;
      },
      [null, 0.3],
    );
    if (!word && named) return 0;
    const stands = word ? (from.get(word) ?? []) : [];
    const cap = stands.length && stands.every((t) => bestOwn.has(t)) ? Math.max(...stands.map((t) => bestOwn.get(t)!)) : Infinity;
    return weight * Math.min(1, cap / Math.max(-entry.rank, Number.MIN_VALUE));
  };
  return {
    candidates: [
      ...entries.map((entry) => ({ entry, weight: 1 })),
      ...expanded.map((entry) => ({ entry, weight: weighed(entry) })).filter((c) => c.weight > 0),
    ],
    related,
    standsFor: new Map([...related.keys()].map((w) => [w, from.get(w) ?? []])),
    engine,
    ...(fallback ? { fallback } : {}),
  };
}

/** The words of a query that count for its coverage: those that say something, or all where none does. */
export function askedWords(terms: readonly string[]): string[] {
  const content = terms.filter((t) => !STOPWORDS.has(t));
  return content.length ? content : [...terms];
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
/** Letters that may carry an accent the index sets aside (Latin-1 to Greek; not the quotes and dashes of U+2000 on). */
const ACCENTED = /[\u00c0-\u1fff]/;

/** Whether `lower` holds `word` whole (not inside a longer word), as the tokenizer splits words. */
function holdsWhole(lower: string, word: string): boolean {
  for (let i = lower.indexOf(word); i >= 0; i = lower.indexOf(word, i + 1)) {
    const end = i + word.length;
    if ((i === 0 || !WORD_CHAR.test(lower[i - 1])) && (end === lower.length || !WORD_CHAR.test(lower[end]))) return true;
  }
  return false;
}

/** What may stand before the first word of a sentence: spaces, opening quotes and brackets. */
const OPENING = /[\s"'‘“([«¿¡-]/u;
const DETERMINERS = new Set(['the', 'a', 'an', 'this', 'these', 'those', 'my', 'your', 'his', 'her', 'its', 'our', 'their']);

/**
 * Whether a text holds `word` (lower case) as a word, not only as someone's or something's name: at
 * least once in lower case, in capitals, at the start of a sentence and not followed by another
 * capitalized word or a number ("Rose bushes", not "Ben Collins" nor "Samba 4.13"), after a
 * determiner ("the Queen"), or in a heading (its first word and most of its longer words
 * capitalized: "The Pool of Tears"). "Ben Collins led Debian" holds "ben" (a mountain, in
 * Scotland) only as a name, "He said that Rose would come" no flower, "Robin Hood" no bird.
 */
export function heldAsWord(text: string, word: string): boolean {
  // Most often written in lower case somewhere: found without splitting the text into words.
  if (holdsWhole(text, word)) return true;
  const all = [...text.matchAll(WORD)];
  const capital = (w: string) => w[0] !== w[0].toLowerCase();
  const longer = all.filter((m) => m[0].length >= 4);
  const heading = all.length > 0 && capital(all[0][0]) && longer.length > 1 && longer.filter((m) => capital(m[0])).length / longer.length >= 0.6;
  let found = false;
  for (const [k, m] of all.entries()) {
    const w = m[0];
    const lower = w.toLowerCase();
    if ((ACCENTED.test(lower) ? fold(lower) : lower) !== word) continue;
    found = true;
    if (w === lower || (w.length > 1 && w === w.toUpperCase())) return true;
    // After a determiner it is a title, not a name: "the Queen", "the Cat".
    const before = all[k - 1];
    if (before && DETERMINERS.has(before[0].toLowerCase()) && /^\s+$/.test(text.slice(before.index + before[0].length, m.index))) return true;
    let i = m.index - 1;
    while (i >= 0 && OPENING.test(text[i])) i--;
    const next = all[k + 1];
    const sameSentence = next && !/[.!?…:;]/.test(text.slice(m.index + w.length, next.index));
    if ((i < 0 || /[.!?…:;]/.test(text[i])) && !(sameSentence && (capital(next[0]) || /^\d/.test(next[0])))) return true;
  }
  // Written capitalized every time, where a sentence would not have it so: a name, unless in a heading.
  return found && heading;
}

/**
 * Which of the query's words (`asked`) a text holds, itself or through a related word that stands
 * for it; accents aside, as the index matches them ("cafe" holds "café"). Nothing is looked for in a
 * query of one word (coverage tells nothing there). Each word is looked for in the text, not the
 * text split into words: a list of 2,000 passages of 40 words split takes ≈ 10 ms.
 */
export function heldWords(asked: readonly string[], standsFor: ReadonlyMap<string, readonly string[]>): (text: string) => string[] {
  if (asked.length < 2) return () => [];
  const wanted = new Map<string, string[]>(asked.map((t) => [fold(t), [t]]));
  for (const [w, ts] of standsFor) wanted.set(fold(w), [...(wanted.get(fold(w)) ?? []), ...ts.filter((t) => asked.includes(t))]);
  return (text) => {
    const lower = ACCENTED.test(text) ? fold(text) : text.toLowerCase();
    const out = new Set<string>();
    for (const [w, ts] of wanted) if (holdsWhole(lower, w)) for (const t of ts) out.add(t);
    return [...out];
  };
}
