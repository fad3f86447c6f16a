// Evidence grouped into moments — a page, a photo, a shot of a video — and the lists fused. A
// moment keeps its best evidence, the best evidence with a box (shown as the hit's region), and
// what found it. Lexical lists rank by score; with dense lists, everything is fused by reciprocal
// rank (Cormack et al.: a moment's score is the sum of 1 / (K + rank) over the lists). A moment's
// place in a dense list counts the support of its other near passages (see bestPerMoment).
import type { SearchHit } from '../contract/search.ts';
import type { EntryHit } from '../store/search.repo.ts';
import type { VectorHit } from '../store/vectors.repo.ts';
import { agreementBoost } from './rerank.ts';
import { looksLikeRunningHead, words } from './tokenizer.ts';
import { STOPWORDS } from './stopwords.ts';

const RRF_K = 60;
/**
 * The constant of the dense lists: smaller than the lexical one, so that the order of the nearest
 * passages still counts against a lexical list of incidental words. Chosen with the real
 * all-MiniLM-L6-v2 on the tuning questions of `npm run test:real-models` (20–40 measure alike; 60
 * lets a page sharing one word with the question outrank the passage that means it); reported there
 * on held-out questions too.
 */
const DENSE_RRF_K = 40;
/** The least a lexical moment counts in fusion, whatever share of the query's words it holds. */
const LEXICAL_FLOOR = 0.25;

export type Evidence = SearchHit['evidence'][number];

export interface Moment {
  entry: EntryHit;
  score: number;
  /** The person whose face is the evidence (people retrieval). */
  name?: string;
  boxed?: { id: string; score: number; name?: string };
  evidence: Evidence[];
  /** The query's words its lexical and people evidence holds, over all its entries (see `coordinate`). */
  held?: Set<string>;
  /** A document page's lexical passages that are no running head, page number or foot, as offered (see `showBody`). */
  body?: Array<{ entry: EntryHit; score: number }>;
}

/** Where a piece of evidence sits: asset, then page, the shot of a video, or the time. */
export type MomentKey = (e: Pick<EntryHit, 'asset_id' | 'page' | 'kind' | 'timestamp'>) => string;

export function momentKey(shotOf: (assetId: string, t: number) => number): MomentKey {
  return (e) => `${e.asset_id}:${e.page ?? (e.kind === 'video' ? `shot${shotOf(e.asset_id, e.timestamp)}` : e.timestamp)}`;
}

export class Moments {
  private readonly byKey = new Map<string, Moment>();

  constructor(readonly keyOf: MomentKey) {}

  get top(): number {
    return Math.max(0, ...[...this.byKey.values()].map((m) => m.score));
  }

  /** A piece of lexical or people evidence for its moment; `holds`: the query's words it holds. */
  offer(e: EntryHit, score: number, retriever: 'lexical' | 'people', name?: string, holds: Iterable<string> = []): void {
    const key = this.keyOf(e);
    const m = this.byKey.get(key);
    const boxed = e.region_id && (!m?.boxed || score > m.boxed.score) ? { id: e.region_id, score, name } : m?.boxed;
    const evidence = m?.evidence ?? [];
    const known = evidence.find((x) => x.retriever === retriever && x.modality === e.modality);
    if (!known) evidence.push({ retriever, modality: e.modality, score });
    else known.score = Math.max(known.score, score);
    const held = m?.held ?? new Set<string>();
    for (const w of holds) held.add(w);
    let body = m?.body;
    if (e.kind === 'document' && retriever === 'lexical' && !looksLikeRunningHead(e.text)) (body ??= []).push({ entry: e, score });
    if (!m || score > m.score) this.byKey.set(key, { entry: e, score, name, boxed, evidence, held, body });
    else {
      m.boxed = boxed;
      m.body = body;
    }
  }

  /**
   * A page of a document whose best passage is its running head, foot or number ("54 CHAPTER 7. A
   * MAD TEA-PARTY", searched on the first page it heads) shows the best passage of its body that
   * holds as many of the query's `asked` words where one does (for "tea": "‘it’s always tea-time,
   * and we’ve no time to wash the things between whiles’"); the page keeps its score.
   */
  showBody(asked: readonly string[]): void {
    const holds = (text: string) => {
      const held = new Set(words(text));
      return asked.filter((w) => held.has(w)).length;
    };
    for (const m of this.byKey.values()) {
      if (!m.body || !looksLikeRunningHead(m.entry.text)) continue;
      const least = holds(m.entry.text);
      const shown = m.body.sort((a, b) => b.score - a.score).find((x) => holds(x.entry.text) >= least);
      if (shown) m.entry = shown.entry;
    }
  }

  /**
   * Weighs each moment of a picture (a photo, a shot of a video) by the share of the query's `asked`
   * words its evidence holds, over all its entries: by (1 + held) / (1 + asked). A moment keeps the
   * score of its best entry, which favours the words asked standing together (a line, a caption);
   * the weight lifts a picture whose entries together hold every word above one that holds some
   * ("people smiling": a photo labelled people with a smiling face above photos labelled people
   * alone, each word found in another of its entries). Pictures that hold as many words keep their
   * order. A page of a document is left as it is: its entries are passages, where its best passage
   * already says how close the words stand, and words scattered over a page's passages say little
   * (measured with the real sentence encoder, test-real/encoder.test.ts: weighed so, one tuning
   * question's page fell from rank 1 to 2, and one held-out e-book question's).
   */
  coordinate(asked: number): void {
    if (asked < 2) return;
    for (const m of this.byKey.values()) if (m.entry.kind !== 'document') m.score *= (1 + Math.min(asked, m.held?.size ?? 0)) / (1 + asked);
  }

  /** Lexical evidence scores as a share of the best (the best is 1). */
  normalizeEvidence(): void {
    const top = this.top || 1;
    for (const m of this.byKey.values()) for (const x of m.evidence) x.score = Math.round((x.score / top) * 1e4) / 1e4;
  }

  /**
   * Fuses the lexical ranking with dense lists (one best entry per moment each) by reciprocal rank.
   * A lexical moment counts by the share of the query's words its evidence holds (at least
   * LEXICAL_FLOOR): a page that shares one incidental word with a question asked in other words
   * does not outrank the passages that mean what was asked.
   */
  fuse(denseLists: Array<Map<string, VectorHit & { weighted: number }>>, terms: readonly string[] = []): void {
    if (denseLists.length === 0) return;
    const fused = new Map<string, number>();
    const asked = terms.filter((t) => !STOPWORDS.has(t));
    const coverage = (m: Moment) => {
      if (asked.length === 0 || m.evidence.some((x) => x.retriever === 'people')) return 1;
      const held = new Set(words(m.entry.text));
      return Math.max(LEXICAL_FLOOR, asked.filter((t) => held.has(t)).length / asked.length);
    };
    [...this.byKey.entries()].sort((a, b) => b[1].score - a[1].score).forEach(([key, m], i) => fused.set(key, coverage(m) / (RRF_K + i + 1)));
    for (const list of denseLists) {
      [...list.entries()]
        .sort((a, b) => b[1].weighted - a[1].weighted)
        .forEach(([key, v], i) => {
          fused.set(key, (fused.get(key) ?? 0) + 1 / (DENSE_RRF_K + i + 1));
          const m = this.byKey.get(key);
          const ev: Evidence = { retriever: 'dense', modality: v.modality, score: Math.round(v.similarity * 1e4) / 1e4 };
          if (m) {
            m.evidence.push(ev);
            if (!m.entry.region_id && !m.boxed && v.region_id) m.boxed = { id: v.region_id, score: 0 };
          } else {
            this.byKey.set(key, { entry: { ...v, rank: 0 }, score: 0, evidence: [ev], boxed: v.region_id ? { id: v.region_id, score: 0 } : undefined });
          }
        });
    }
    for (const [key, m] of this.byKey) m.score = fused.get(key) ?? 0;
  }

  /** Best first; with `agreement`, moments several kinds of evidence point at rise first. */
  ranked(agreement: boolean): Moment[] {
    const list = [...this.byKey.values()];
    if (agreement) for (const m of list) m.score *= agreementBoost(m.evidence);
    return list.sort((a, b) => b.score - a.score);
  }
}
