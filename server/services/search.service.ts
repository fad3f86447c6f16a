// Search (SPEC 4.5): one ranked list of moments across videos, photos and documents.
// Lexical: BM25 over every indexed text (file names, passages, OCR, transcripts, labels...) widened
// by WordNet, and people found by name. Dense, when a sentence encoder is installed: the query's
// vector against the HNSW graph of the indexed evidence; when the image-text model is installed,
// also against the graph of the pictures themselves. The lists are grouped into moments (a page,
// a photo, a shot of a video) and fused by reciprocal rank; `rerank` adds a second pass that rewards
// exact phrases and query coverage. Reads the indexes; writes nothing.
import type { Store } from '../store/index.ts';
import type { EntryHit } from '../store/search.repo.ts';
import { AppError, Errors } from '../errors.ts';
import type { Modality, SearchHit, SearchRequest, SearchResponse, SEARCH_TYPES } from '../contract/search.ts';
import type { AuthContext } from './auth.service.ts';
import type { ReadsService } from './reads.service.ts';
import { wordnet, type Relation } from '../search/wordnet.ts';
import { STOPWORDS } from '../search/stopwords.ts';
import type { VectorHit } from '../store/vectors.repo.ts';
import { embedTexts } from '../ml/embeddings.ts';
import { embedClipTexts } from '../ml/clip.ts';
import { isInstalled, modelsDir } from '../ml/models.ts';
import { EMBEDDED_MODALITIES, PICTURE_EMBEDDING_MODEL, TEXT_EMBEDDING_MODEL } from '../ml/catalogue.ts';

const MAX_TERMS = 32;
/** WordNet adds at most this many related words, none held by more than this share of the entries. */
const MAX_EXPANSIONS = 16;
const MAX_EXPANSION_SHARE = 0.02;
/** Below this cosine a dense neighbour is not evidence (MiniLM puts unrelated text near 0–0.2). */
export const MIN_DENSE_SIMILARITY = 0.3;
/** The same for a description against a picture (CLIP puts matching pairs near 0.25–0.35, unrelated near 0.1–0.2). */
export const MIN_PICTURE_SIMILARITY = 0.22;
/** Reciprocal-rank fusion constant (Cormack et al.): a moment's score is the sum of w / (K + rank). */
const RRF_K = 60;

type Evidence = SearchHit['evidence'][number];

/** Words people use for the expressions the faces stage tells apart. */
const EMOTION_WORDS: Record<string, string> = {
  happy: 'happy', happiness: 'happy', smile: 'happy', smiling: 'happy', smiles: 'happy', joy: 'happy', joyful: 'happy', laughing: 'happy',
  sad: 'sad', sadness: 'sad', unhappy: 'sad', crying: 'sad',
  angry: 'angry', anger: 'angry', mad: 'angry', furious: 'angry',
  surprise: 'surprise', surprised: 'surprise', astonished: 'surprise',
  fear: 'fear', afraid: 'fear', scared: 'fear', frightened: 'fear',
  disgust: 'disgust', disgusted: 'disgust',
  neutral: 'neutral', calm: 'neutral', serious: 'neutral',
};

function highlightsWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

export function queryTerms(query: string): string[] {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).filter((w) => w.length > 0);
  return [...new Set(words)].slice(0, MAX_TERMS);
}

/** Character ranges of the query's words in a text (whole words, case-insensitive). */
export function highlights(text: string, terms: string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    if (terms.includes(m[0])) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

/**
 * The second pass on one piece of text: + the share of the query's words it holds, + 2 for the
 * exact phrase (the query as written is the strongest sign), + up to 0.5 for proximity (the words found, over the span of words that holds them
 * all: 0.5 when they stand together).
 */
export function rerankBoost(text: string, terms: string[], phrase: string): number {
  const lower = text.toLowerCase();
  const tokens = highlightsWords(lower);
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
          count.set(w, (count.get(w) as number) - 1);
          if (count.get(w) === 0) have--;
        }
      }
    }
    proximity = 0.5 * (found.length / best);
  }
  return 1 + found.length / terms.length + (terms.length > 1 && lower.includes(phrase) ? 2 : 0) + proximity;
}

export class SearchService {
  constructor(
    private readonly store: Store,
    private readonly reads: ReadsService,
  ) {}

  /** The shot of a video holding a time (a long video gives one hit per shot at most). */
  private shotOf(cache: Map<string, Array<{ idx: number; start_s: number; end_s: number }>>, assetId: string, t: number): number {
    let list = cache.get(assetId);
    if (!list) cache.set(assetId, (list = this.store.media.shots(assetId)));
    return list.find((s) => t >= s.start_s && t < s.end_s)?.idx ?? Math.floor(t);
  }

  private regionOf(id: string | null, personName?: string): SearchHit['region'] {
    const r = id ? this.store.regions.byId(id) : undefined;
    if (!r) return null;
    return { x: r.x, y: r.y, w: r.w, h: r.h, label: personName ?? r.label ?? r.text ?? '', source: personName ? 'people' : r.source };
  }

  /** Related words (WordNet) of the query's words that the index holds, with their weight. */
  private expansions(terms: string[]): Map<string, number> {
    const weight: Record<Relation, number> = { synonym: 0.8, broader: 0.6, narrower: 0.6 };
    const related = new Map<string, number>();
    for (const t of terms) {
      if (t.length < 3 || !/^[a-z]+$/.test(t)) continue;
      for (const [w, r] of wordnet.expand(t)) if (!terms.includes(w)) related.set(w, Math.max(related.get(w) ?? 0, weight[r]));
    }
    // Only words the index holds, and of those the most telling: a related word found in much of the
    // library adds noise and cost, not meaning.
    const counts = this.store.search.wordCounts([...related.keys()]);
    const common = Math.max(50, this.store.search.approximateSize() * MAX_EXPANSION_SHARE);
    const kept = [...related]
      .filter(([w]) => (counts.get(w) ?? Infinity) <= common)
      .sort((a, b) => b[1] - a[1] || (counts.get(a[0]) as number) - (counts.get(b[0]) as number))
      .slice(0, MAX_EXPANSIONS);
    return new Map(kept);
  }

  /**
   * One dimension (SPEC 4.5): character = people by name; location = scene labels and text seen
   * (signs, captions); emotion = faces whose expression the query names; music = unavailable here.
   */
  async typed(auth: AuthContext, type: (typeof SEARCH_TYPES)[number], req: Omit<SearchRequest, 'rerank' | 'search_options'>, origin: string) {
    if (type === 'music') {
      return { query: req.query, type, engine: 'arrow' as const, recipe: 'none', hits: [], unavailable: 'music recognition is not available on this deployment' };
    }
    if (type === 'emotion') {
      const words = queryTerms(req.query);
      const emotions = [...new Set(words.map((w) => EMOTION_WORDS[w]).filter(Boolean))];
      if (emotions.length === 0) {
        throw new AppError('invalid_request', 422, `Name an expression: ${[...new Set(Object.values(EMOTION_WORDS))].join(', ')}.`);
      }
      // The expression words alone: every face entry reads "face <expression>".
      const r = await this.search(auth, { ...req, query: emotions.join(' '), rerank: false, search_options: { modalities: ['person'] } }, origin);
      return { ...r, query: req.query, type };
    }
    const modalities: Modality[] = type === 'character' ? ['person'] : ['label', 'ocr'];
    return { ...(await this.search(auth, { ...req, rerank: false, search_options: { modalities } }, origin)), type };
  }

  /** The query's nearest evidence by meaning from one model, in assets the workspaces see; null without the model. */
  private async dense(
    model: string,
    query: string,
    opts: { workspaceIds: string[]; assetId?: string; engine: string; limit: number },
  ): Promise<VectorHit[] | null> {
    const dataDir = this.store.files.root;
    if (!isInstalled(dataDir, model)) return null;
    const picture = model === PICTURE_EMBEDDING_MODEL;
    const [q] = await (picture ? embedClipTexts : embedTexts)(modelsDir(dataDir), model, [query]);
    let near: Array<{ id: number; similarity: number }>;
    if (opts.assetId) {
      // One asset: an exact scan of its vectors.
      near = this.store.vectors.ofAsset(opts.assetId, model).map((v) => {
        let dot = 0;
        for (let i = 0; i < q.length; i++) dot += q[i] * v.vector[i];
        return { id: v.id, similarity: dot };
      });
    } else {
      near = this.store.vectorIndex.nearest(model, q, opts.limit);
    }
    const min = picture ? MIN_PICTURE_SIMILARITY : MIN_DENSE_SIMILARITY;
    near = near.filter((n) => n.similarity >= min);
    const similarity = new Map(near.map((n) => [n.id, n.similarity]));
    return this.store.vectors
      .visible(near.map((n) => n.id), opts)
      .map((v) => ({ ...v, similarity: similarity.get(v.id) ?? 0 }))
      .sort((a, b) => b.similarity - a.similarity);
  }

  async search(auth: AuthContext, req: SearchRequest, origin: string): Promise<SearchResponse> {
    const federated = req.workspace_ids !== undefined;
    const workspaceIds = req.workspace_ids ?? [auth.workspaceId];
    for (const w of workspaceIds) {
      if (w !== auth.workspaceId && !auth.access.includes(w)) {
        throw Errors.forbidden(`This key may not search workspace ${w}.`);
      }
    }
    if (req.video_id !== undefined && !workspaceIds.some((w) => this.store.assets.findVisible(req.video_id as string, w))) {
      throw Errors.notFound('Video');
    }
    const terms = queryTerms(req.query);
    if (terms.length === 0) throw new AppError('invalid_request', 422, 'The query has no words to search for.');

    const requested = req.engine ?? this.store.workspaces.defaultEngine(auth.workspaceId);
    let engine = requested;
    let fallback: string | undefined;
    const content = terms.filter((t) => !STOPWORDS.has(t));
    const expr = (content.length ? content : terms).map((t) => `"${t}"`).join(' OR ');
    const opts = { workspaceIds, assetId: req.video_id, limit: Math.min(2000, req.limit * 20) };
    let entries = this.store.search.match(expr, { ...opts, engine });
    if (entries.length === 0 && requested === 'classic') {
      const other = this.store.search.match(expr, { ...opts, engine: 'arrow' });
      if (other.length > 0) {
        engine = 'arrow';
        entries = other;
        fallback = 'classic holds nothing that matches: it searches only assets indexed by the deprecated tiers; arrow answered';
      }
    }

    const allowed = req.search_options?.modalities;
    const weights = req.search_options?.weights ?? {};
    const phrase = req.query.trim().toLowerCase();
    // WordNet expansion: related nouns the index holds, ranked below the words asked for.
    const related = this.expansions(terms);
    const expandedEntries = related.size
      ? this.store.search.match([...related.keys()].map((t) => `"${t}"`).join(' OR '), { ...opts, engine })
      : [];
    const candidates: Array<{ e: EntryHit; weight: number; name?: string }> = [
      ...entries.map((e) => ({ e, weight: 1 })),
      ...expandedEntries.map((e) => ({ e, weight: Math.max(...highlightsWords(e.text).map((w) => related.get(w) ?? 0), 0.3) })),
    ];
    // A moment keeps its best evidence, and the best evidence with a box (shown as the hit's region).
    interface Moment {
      entry: EntryHit;
      score: number;
      name?: string;
      boxed?: { id: string; score: number; name?: string };
      evidence: Evidence[];
    }
    const moments = new Map<string, Moment>();
    const shots = new Map<string, Array<{ idx: number; start_s: number; end_s: number }>>();
    const keyOf = (e: Pick<EntryHit, 'asset_id' | 'page' | 'kind' | 'timestamp'>) =>
      `${e.asset_id}:${e.page ?? (e.kind === 'video' ? `shot${this.shotOf(shots, e.asset_id, e.timestamp)}` : e.timestamp)}`;
    const offer = (e: EntryHit, score: number, retriever: 'lexical' | 'people', name?: string) => {
      const key = keyOf(e);
      const m = moments.get(key);
      const boxed = e.region_id && (!m?.boxed || score > m.boxed.score) ? { id: e.region_id, score, name } : m?.boxed;
      const evidence = m?.evidence ?? [];
      const known = evidence.find((x) => x.retriever === retriever && x.modality === e.modality);
      if (!known) evidence.push({ retriever, modality: e.modality as Modality, score });
      else known.score = Math.max(known.score, score);
      if (!m || score > m.score) moments.set(key, { entry: e, score, name, boxed, evidence });
      else m.boxed = boxed;
    };
    for (const { e, weight } of candidates) {
      const modality = e.modality as Modality;
      if (allowed && !allowed.includes(modality)) continue;
      let score = -e.rank * weight * (weights[modality] ?? 1);
      if (req.rerank) score *= rerankBoost(e.text, terms, phrase);
      offer(e, score, 'lexical');
    }
    // A query naming a person finds that person's faces, above text that merely mentions the words.
    if (!allowed || allowed.includes('person')) {
      const top = Math.max(0, ...[...moments.values()].map((m) => m.score));
      for (const e of this.store.search.facesOfPeopleNamed(terms, workspaceIds, req.video_id, engine)) {
        offer(e, (top || 1) * 1.5 * (weights.person ?? 1) * (0.5 + 0.5 * (e.timestamp === 0 ? 1 : 0.9)), 'people', (e as EntryHit & { name: string }).name);
      }
    }

    const lexicalTop = Math.max(0, ...[...moments.values()].map((m) => m.score)) || 1;
    for (const m of moments.values()) for (const x of m.evidence) x.score = Math.round((x.score / lexicalTop) * 1e4) / 1e4;

    // Dense: the nearest evidence by meaning (text, and pictures), one entry per moment and model,
    // each list fused with the lexical ranks.
    const denseLists: Array<Map<string, VectorHit & { weighted: number }>> = [];
    const used: string[] = [];
    for (const model of [TEXT_EMBEDDING_MODEL, PICTURE_EMBEDDING_MODEL] as const) {
      // A model whose vectors hold none of the kinds of evidence asked for is not asked.
      if (allowed && !EMBEDDED_MODALITIES[model].some((m) => allowed.includes(m))) continue;
      const near = await this.dense(model, req.query, { ...opts, engine });
      if (near === null) continue;
      used.push(model);
      const best = new Map<string, VectorHit & { weighted: number }>();
      for (const v of near) {
        const modality = v.modality as Modality;
        if (allowed && !allowed.includes(modality)) continue;
        const weighted = v.similarity * (weights[modality] ?? 1);
        const key = keyOf(v);
        if (weighted > (best.get(key)?.weighted ?? 0)) best.set(key, { ...v, weighted });
      }
      if (best.size) denseLists.push(best);
    }
    let ranked: Moment[];
    if (denseLists.length === 0) {
      ranked = [...moments.values()].sort((a, b) => b.score - a.score);
    } else {
      const fused = new Map<string, number>();
      [...moments.entries()].sort((a, b) => b[1].score - a[1].score).forEach(([key], i) => fused.set(key, 1 / (RRF_K + i + 1)));
      for (const list of denseLists) {
        [...list.entries()]
          .sort((a, b) => b[1].weighted - a[1].weighted)
          .forEach(([key, v], i) => {
            fused.set(key, (fused.get(key) ?? 0) + 1 / (RRF_K + i + 1));
            const m = moments.get(key);
            const ev: Evidence = { retriever: 'dense', modality: v.modality as Modality, score: Math.round(v.similarity * 1e4) / 1e4 };
            if (m) {
              m.evidence.push(ev);
              if (!m.entry.region_id && !m.boxed && v.region_id) m.boxed = { id: v.region_id, score: 0 };
            } else {
              moments.set(key, { entry: { ...v, rank: 0 }, score: 0, evidence: [ev], boxed: v.region_id ? { id: v.region_id, score: 0 } : undefined });
            }
          });
      }
      for (const [key, m] of moments) m.score = fused.get(key) ?? 0;
      ranked = [...moments.values()].sort((a, b) => b.score - a.score);
    }
    // Second pass, cross-modal agreement: a moment that several kinds of evidence point at (the
    // words on a page and their meaning, a name and a face) rises.
    if (req.rerank) {
      for (const m of ranked) m.score *= 1 + 0.25 * (new Set(m.evidence.map((x) => `${x.retriever}:${x.modality}`)).size - 1);
      ranked.sort((a, b) => b.score - a.score);
    }
    ranked = ranked.slice(0, req.limit);
    const top = ranked[0]?.score ?? 1;

    const marked = [...terms, ...related.keys()];
    const hits: SearchHit[] = ranked.map(({ entry: e, score, name, boxed, evidence }) => {
      const page = e.kind === 'document' ? (e.page ?? 1) : null;
      const timestamp = page !== null ? page - 1 : e.timestamp;
      let passage: SearchHit['passage'] = null;
      if (e.modality === 'passage' && e.page !== null && e.ref !== null) {
        const p = this.store.media.passages(e.asset_id, e.page).find((x) => x.idx === e.ref);
        if (p) passage = { idx: p.idx, text: p.text, bbox: { x: p.x, y: p.y, w: p.w, h: p.h }, highlights: highlights(p.text, marked) };
      }
      return {
        video_id: e.asset_id,
        asset_kind: e.kind,
        file_name: e.file_name,
        timestamp,
        page,
        frame_url: this.reads.frameUrlAt(origin, { id: e.asset_id, kind: e.kind }, timestamp),
        score: Math.round((score / top) * 1e4) / 1e4,
        modality: e.modality as Modality,
        snippet: { text: e.text, highlights: highlights(e.text, marked) },
        passage,
        region: e.region_id ? this.regionOf(e.region_id, name) : boxed ? this.regionOf(boxed.id, boxed.name) : null,
        evidence,
        ...(federated ? { workspace_id: e.workspace_id } : {}),
      };
    });
    const parts = ['lexical-bm25', 'wordnet', 'people'];
    if (used.length) parts.push(...used.map((m) => `dense(${m})`), 'rrf');
    if (req.rerank) parts.push('rerank(phrase,coverage,proximity,agreement)');
    return {
      query: req.query,
      engine,
      recipe: parts.join('+'),
      ...(fallback ? { engine_fallback: fallback } : {}),
      hits,
    };
  }
}
