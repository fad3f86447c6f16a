// The search pipeline (SPEC 4.5), once the service has said which workspaces the key may read:
// what the words say (interpret: dates, places, people, kinds), the filters resolved, lexical (BM25 +
// WordNet), people by name, dense (meaning, when an encoder is installed), fusion into moments, the
// optional rerank pass, hits in the order asked. Reads the indexes; writes nothing.
import type { Store } from '../store/index.ts';
import { AppError } from '../errors.ts';
import type { SearchFilters, SearchRequest } from '../contract/search.ts';
import type { AuthContext } from '../contract/auth.ts';
import { EMBEDDED_MODALITIES, PICTURE_EMBEDDING_MODEL, TEXT_EMBEDDING_MODEL } from '../ml/catalogue.ts';
import { clock } from '../store/ids.ts';
import { queryTerms } from './tokenizer.ts';
import { lexical } from './lexical.ts';
import { offerNamedPeople } from './people.ts';
import { bestPerMoment, nearestByMeaning } from './dense.ts';
import { Moments, momentKey } from './moments.ts';
import { rerankBoost } from './rerank.ts';
import { toHits, type FoundHit } from './hits.ts';
import { fold, interpret } from './interpret.ts';
import { hasFilters } from './filters.ts';
import type { FilterResolver } from './resolve.ts';

export interface SearchResult {
  query: string;
  engine: 'arrow' | 'classic';
  recipe: string;
  engine_fallback?: string;
  interpreted: { words: string; filters: SearchFilters; phrases: string[]; order: 'relevance' | 'taken_at' };
  hits: FoundHit[];
}

/** Who asks and what they may read (the workspaces the service allowed; `federated` when they were asked for). */
export interface SearchContext {
  auth: AuthContext;
  workspaceIds: string[];
  federated: boolean;
}

export async function searchIndex(store: Store, resolver: FilterResolver, req: SearchRequest, ctx: SearchContext): Promise<SearchResult> {
  const { auth, workspaceIds } = ctx;
  const order = req.search_options?.order ?? 'relevance';

  // What the words say, then the filters given, which win where both speak.
  const read =
    req.search_options?.interpret === false
      ? { words: req.query, filters: {}, phrases: [] }
      : interpret(req.query, {
          now: new Date(clock.now()),
          isPlace: (phrase) => resolver.placeNames(workspaceIds).has(fold(phrase)),
          personNamed: (phrase) => store.people.namedInWorkspace(auth.workspaceId, phrase)?.id ?? null,
        });
  const filters: SearchFilters = { ...read.filters, ...(req.search_options?.filters ?? {}) };
  const resolved = resolver.resolve(auth, workspaceIds, filters);
  const interpreted = { words: read.words, filters, phrases: read.phrases, order };

  const terms = queryTerms(read.words);
  if (terms.length === 0 && !hasFilters(resolved)) throw new AppError('invalid_request', 422, 'The query has no words to search for.');
  const scope = { workspaceIds, assetId: req.video_id, limit: Math.min(2000, req.limit * 20), filters: resolved };
  const engine = req.engine ?? store.workspaces.defaultEngine(auth.workspaceId);
  if (terms.length === 0) {
    // Only filters: what holds, newest first.
    const moments = new Moments(momentKey(() => 0));
    for (const e of store.search.browse({ ...scope, engine, limit: req.limit })) moments.offer(e, 1, 'lexical');
    const ranked = moments.ranked(false);
    for (const m of ranked) m.evidence = [{ retriever: 'filters', modality: 'metadata', score: 1 }];
    return {
      query: req.query,
      engine,
      recipe: 'filters',
      interpreted,
      hits: ordered(toHits(store, ranked, [], ctx.federated), 'taken_at'),
    };
  }

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

  const found = lexical(store, terms, scope, engine);
  for (const { entry, weight } of found.candidates) {
    if (allowed && !allowed.includes(entry.modality)) continue;
    const score = -entry.rank * weight * (weights[entry.modality] ?? 1);
    moments.offer(entry, req.rerank ? score * rerankBoost(entry.text, terms, phrase) : score, 'lexical');
  }
  if (!allowed || allowed.includes('person')) offerNamedPeople(store, moments, terms, { ...scope, engine: found.engine, weight: weights.person ?? 1 });
  moments.normalizeEvidence();

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
  const ranked = moments.ranked(req.rerank).slice(0, req.limit);

  const recipe = ['lexical-bm25', 'wordnet', 'people'];
  if (used.length) recipe.push(...used.map((m) => `dense(${m})`), 'rrf');
  if (req.rerank) recipe.push('rerank(phrase,coverage,proximity,agreement)');
  if (hasFilters(resolved)) recipe.push('filters');
  return {
    query: req.query,
    engine: found.engine,
    recipe: recipe.join('+'),
    ...(found.fallback ? { engine_fallback: found.fallback } : {}),
    interpreted,
    hits: ordered(toHits(store, ranked, [...terms, ...found.related.keys()], ctx.federated), order),
  };
}

function ordered(hits: FoundHit[], order: 'relevance' | 'taken_at'): FoundHit[] {
  if (order === 'relevance') return hits;
  const ms = (h: FoundHit) => (h.taken_at ? Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(h.taken_at) ? h.taken_at : `${h.taken_at}Z`) : -Infinity);
  return [...hits].sort((a, b) => ms(b) - ms(a));
}
