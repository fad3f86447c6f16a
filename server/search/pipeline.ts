// The search pipeline (SPEC 4.5), once the service has said which workspaces the key may read:
// what the words say (interpret: dates, places, people, kinds), the filters resolved, lexical (BM25 +
// WordNet), people by name, dense (meaning, when an encoder is installed), fusion into moments, the
// optional rerank pass, hits in the order asked. Reads the indexes; writes nothing.
import type { Store } from '../store/index.ts';
import { AppError } from '../errors.ts';
import { MAX_GROUP_MOMENTS, type SearchFacets, type SearchFilters, type SearchRequest } from '../contract/search.ts';
import type { AuthContext } from '../contract/auth.ts';
import { EMBEDDED_MODALITIES, PICTURE_EMBEDDING_MODEL, TEXT_EMBEDDING_MODEL } from '../ml/catalogue.ts';
import { clock } from '../store/ids.ts';
import { queryTerms } from './tokenizer.ts';
import { STOPWORDS } from './stopwords.ts';
import { askedWords, heldWords, lexical } from './lexical.ts';
import { wordnet } from './wordnet.ts';
import { offerNamedPeople } from './people.ts';
import { bestPerMoment, nearestByMeaning } from './dense.ts';
import { Moments, momentKey, type Moment } from './moments.ts';
import { rerankBoost } from './rerank.ts';
import { momentsOf, toHits, type FoundHit } from './hits.ts';
import { fold, interpret } from './interpret.ts';
import { hasFilters } from './filters.ts';
import type { FilterResolver } from './resolve.ts';

export interface SearchResult {
  query: string;
  engine: 'arrow' | 'classic';
  recipe: string;
  engine_fallback?: string;
  interpreted: {
    words: string;
    filters: SearchFilters;
    phrases: string[];
    order: 'relevance' | 'taken_at';
    related: Array<{ word: string; for: string[] }>;
    set_aside?: string;
  };
  hits: FoundHit[];
  pagination: { limit: number; offset: number; total: number; has_more: boolean };
  facets: SearchFacets;
}

/** Who asks and what they may read (the workspaces the service allowed; `federated` when they were asked for). */
export interface SearchContext {
  auth: AuthContext;
  workspaceIds: string[];
  federated: boolean;
}

/**
 * How many entries each list may bring: one number for every page of a search (it depends on the
 * page size, never on the offset), so that pages follow one ranking.
 */
const poolSize = (limit: number) => Math.min(2000, limit * 20);

/** A search's whole ranking, arranged as asked (grouped, ordered), with its facets: what its pages are cut from. */
export interface Ranking {
  meta: Omit<SearchResult, 'hits' | 'pagination' | 'facets'>;
  groups: Moment[][];
  top: number;
  marked: string[];
  facets: SearchFacets;
}

/**
 * Rankings kept for their next pages: a page after the first is cut from the ranking its first page
 * was (the same request but `offset`), so pages follow one order even while indexing goes on; the
 * first page always searches again.
 */
export class Rankings {
  private readonly kept = new Map<string, { at: number; ranking: Ranking }>();

  constructor(
    private readonly size: number,
    private readonly ttlMs: number,
  ) {}

  get(key: string): Ranking | undefined {
    const k = this.kept.get(key);
    if (!k || Date.now() - k.at > this.ttlMs) return undefined;
    return k.ranking;
  }

  set(key: string, ranking: Ranking): void {
    this.kept.delete(key);
    this.kept.set(key, { at: Date.now(), ranking });
    if (this.kept.size > this.size) this.kept.delete(this.kept.keys().next().value as string);
  }
}

export async function searchIndex(store: Store, resolver: FilterResolver, req: SearchRequest, ctx: SearchContext, rankings?: Rankings): Promise<SearchResult> {
  const key = rankings ? JSON.stringify([ctx.auth.workspaceId, ctx.workspaceIds, { ...req, offset: 0 }]) : null;
  let ranking = key && req.offset > 0 ? rankings!.get(key) : undefined;
  if (!ranking) {
    ranking = await rankIndex(store, resolver, req, ctx);
    if (key) rankings!.set(key, ranking);
  }
  return { ...ranking.meta, ...pageOf(store, ranking, req, ctx) };
}

/**
 * The query's words that stand for a name, not widened by related words: those in the name of a
 * person of the workspace ("john" where someone is named John), and those written with a capital
 * that the lexicon knows as a name ("Lincoln", "Paris", "John": not "president", "france", "toilet").
 */
function namesIn(store: Store, text: string, terms: string[], workspaceIds: string[]): Set<string> {
  const names = store.search.personNameWords(terms, workspaceIds);
  for (const m of text.matchAll(/\p{Lu}[\p{L}\p{M}]*/gu)) {
    const w = m[0].toLowerCase();
    if (terms.includes(w) && wordnet.isName(w)) names.add(w);
  }
  return names;
}

async function rankIndex(store: Store, resolver: FilterResolver, req: SearchRequest, ctx: SearchContext): Promise<Ranking> {
  const { auth, workspaceIds } = ctx;
  const order = req.search_options?.order ?? 'relevance';

  // What the words say, then the filters given, which win where both speak.
  const read =
    req.search_options?.interpret === false
      ? { words: req.query, filters: {} as SearchFilters, phrases: [] }
      : interpret(req.query, {
          now: new Date(clock.now()),
          isPlace: (phrase) => resolver.placeNames(workspaceIds).has(fold(phrase)),
          personNamed: (phrase) => store.people.namedInWorkspace(auth.workspaceId, phrase)?.id ?? null,
        });
  const filters: SearchFilters = { ...read.filters, ...(req.search_options?.filters ?? {}) };
  const resolved = resolver.resolve(auth, workspaceIds, filters);
  const interpreted: SearchResult['interpreted'] = { words: read.words, filters, phrases: read.phrases, order, related: [] };

  const terms = queryTerms(read.words);
  if (terms.length === 0 && !hasFilters(resolved)) throw new AppError('invalid_request', 422, 'The query has no words to search for.');
  const scope = { workspaceIds, assetId: req.video_id, limit: poolSize(req.limit), filters: resolved };
  const engine = req.engine ?? store.workspaces.defaultEngine(auth.workspaceId);
  const page = (ranked: Moment[], recipe: string, marked: string[], extra: { engine_fallback?: string; engine?: typeof engine } = {}): Ranking => ({
    meta: { query: req.query, engine, recipe, ...extra, interpreted },
    marked,
    ...arranged(store, ranked, req, ctx, interpreted.order),
  });
  // Only filters: what holds, newest first.
  const listed = () => {
    const moments = new Moments(momentKey(() => 0));
    for (const e of store.search.browse({ ...scope, engine })) moments.offer(e, 1, 'lexical');
    const ranked = moments.ranked(false);
    for (const m of ranked) m.evidence = [{ retriever: 'filters', modality: 'metadata', score: 1 }];
    interpreted.order = 'taken_at';
    return page(ranked, 'filters', []);
  };
  if (terms.length === 0) return listed();

  const allowed = req.search_options?.modalities;
  const weights = req.search_options?.weights ?? {};
  const phrase = read.words.trim().toLowerCase();
  const shots = new Map<string, Array<{ idx: number; start_s: number; end_s: number }>>();
  const moments = new Moments(
    momentKey((assetId, t) => {
      let list = shots.get(assetId);
      if (!list) shots.set(assetId, (list = store.media.shots(assetId)));
      return list.find((s) => t >= s.start_s && t < s.end_s)?.idx ?? Math.floor(t);
    }),
  );

  const found = lexical(store, terms, scope, engine, namesIn(store, read.words, terms, workspaceIds));
  interpreted.related = [...found.related.keys()].map((word) => ({ word, for: found.standsFor.get(word) ?? [] }));
  const asked = askedWords(terms);
  const held = heldWords(asked, found.standsFor);
  for (const { entry, weight } of found.candidates) {
    if (allowed && !allowed.includes(entry.modality)) continue;
    const score = -entry.rank * weight * (weights[entry.modality] ?? 1);
    // The words an entry holds count for the pictures' moments only (Moments.coordinate).
    moments.offer(
      entry,
      req.rerank ? score * rerankBoost(entry.text, terms, phrase) : score,
      'lexical',
      undefined,
      entry.kind === 'document' ? [] : held(entry.text),
    );
  }
  moments.showBody(asked);
  if (!allowed || allowed.includes('person')) offerNamedPeople(store, moments, terms, { ...scope, engine: found.engine, weight: weights.person ?? 1 });
  moments.normalizeEvidence();
  moments.coordinate(asked.length);

  const used: string[] = [];
  const denseLists = [];
  for (const model of [TEXT_EMBEDDING_MODEL, PICTURE_EMBEDDING_MODEL] as const) {
    // A model whose vectors hold none of the kinds of evidence asked for is not asked.
    if (allowed && !EMBEDDED_MODALITIES[model].some((m) => allowed.includes(m))) continue;
    const near = await nearestByMeaning(store, model, read.words, { ...scope, engine: found.engine });
    if (near === null) continue;
    used.push(model);
    const best = bestPerMoment(near, moments.keyOf, allowed, weights);
    if (best.size) denseLists.push(best);
  }
  moments.fuse(denseLists, terms);
  const ranked = moments.ranked(req.rerank);
  // A date said in the words, and nothing then holds the other words: what was taken then, the
  // words set aside (said in the answer), rather than nothing.
  if (ranked.length === 0 && read.filters.taken_after !== undefined && read.words) {
    interpreted.set_aside = read.words;
    interpreted.related = [];
    return listed();
  }

  const recipe = ['lexical-bm25', 'wordnet', 'people'];
  if (used.length) recipe.push(...used.map((m) => `dense(${m})`), 'rrf');
  if (req.rerank) recipe.push('rerank(phrase,coverage,proximity,agreement)');
  if (hasFilters(resolved)) recipe.push('filters');
  // The words marked in snippets and on pages: those that say something ("the", "to" marked on
  // every line of a page hide the words asked for), unless the query holds no other.
  const telling = terms.filter((t) => !STOPWORDS.has(t));
  return page(ranked, recipe.join('+'), [...(telling.length ? telling : terms), ...found.related.keys()], {
    engine: found.engine,
    ...(found.fallback ? { engine_fallback: found.fallback } : {}),
  });
}

/**
 * The ranked moments as the hits will be: one per moment or per asset (its best moment, with its
 * moments), in the order asked, and the facets of the whole list.
 */
function arranged(store: Store, ranked: Moment[], req: SearchRequest, ctx: SearchContext, order: 'relevance' | 'taken_at') {
  const assetIds = [...new Set(ranked.map((m) => m.entry.asset_id))];
  const top = ranked[0]?.score ?? 1;
  let groups: Moment[][] = ranked.map((m) => [m]);
  if (req.group_by === 'asset') {
    const byAsset = new Map<string, Moment[]>();
    for (const m of ranked) {
      const g = byAsset.get(m.entry.asset_id);
      if (g) g.push(m);
      else byAsset.set(m.entry.asset_id, [m]);
    }
    groups = [...byAsset.values()];
  }
  if (order === 'taken_at') {
    // Newest taken first; the undated last; ties keep the ranking.
    const taken = store.metadata.takenOf(assetIds);
    const ms = (id: string) => {
      const at = taken.get(id)?.taken_at;
      return at ? Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(at) ? at : `${at}Z`) : -Infinity;
    };
    groups = groups
      .map((g, i) => ({ g, i, t: ms(g[0].entry.asset_id) }))
      .sort((a, b) => b.t - a.t || a.i - b.i)
      .map((x) => x.g);
  }
  return { groups, top, facets: store.assets.facetsOf(ctx.auth.workspaceId, assetIds) };
}

/** One page of a ranking, as hits. */
function pageOf(store: Store, ranking: Ranking, req: SearchRequest, ctx: SearchContext) {
  const { groups, top, marked } = ranking;
  // An asset deleted since the ranking was made is left out of its later pages.
  const page = groups.slice(req.offset, req.offset + req.limit);
  const live = store.assets.liveAmong(page.map((g) => g[0].entry.asset_id));
  const shown = page.filter((g) => live.has(g[0].entry.asset_id));
  const hits = toHits(
    store,
    shown.map((g) => g[0]),
    marked,
    ctx.federated,
    top,
  );
  if (req.group_by === 'asset')
    shown.forEach((g, i) => {
      hits[i].moments = momentsOf(store, g.slice(0, MAX_GROUP_MOMENTS), marked, top);
      hits[i].moment_count = g.length;
    });
  return {
    hits,
    pagination: { limit: req.limit, offset: req.offset, total: groups.length, has_more: req.offset + req.limit < groups.length },
    facets: ranking.facets,
  };
}
