// Search (SPEC 4.5): who may search what, which filters hold, and the order of the steps. The steps
// live in search/: what the words say (interpret: dates, places, people, kinds), lexical (BM25 +
// WordNet), people by name, dense (meaning, when an encoder is installed), fusion into moments,
// the optional rerank pass, hits. Reads the indexes; writes nothing.
import type { Store } from '../store/index.ts';
import { WorkspacesService } from './workspaces.service.ts';
import { AppError, Errors } from '../errors.ts';
import type { SearchFilters, SearchRequest, SEARCH_TYPES } from '../contract/search.ts';
import type { AuthContext } from '../contract/auth.ts';
import { EMBEDDED_MODALITIES, PICTURE_EMBEDDING_MODEL, TEXT_EMBEDDING_MODEL } from '../ml/catalogue.ts';
import { queryTerms } from '../search/tokenizer.ts';
import { lexical } from '../search/lexical.ts';
import { offerNamedPeople } from '../search/people.ts';
import { bestPerMoment, nearestByMeaning } from '../search/dense.ts';
import { Moments, momentKey } from '../search/moments.ts';
import { rerankBoost } from '../search/rerank.ts';
import { toHits, type FoundHit } from '../search/hits.ts';
import { EMOTION_NAMES, TYPED_MODALITIES, emotionsIn } from '../search/typed.ts';
import { fold, interpret } from '../search/interpret.ts';
import { hasFilters } from '../search/filters.ts';
import { FilterResolver } from '../search/resolve.ts';
import { clock } from '../store/ids.ts';

export { rerankBoost } from '../search/rerank.ts';
export { queryTerms, highlights } from '../search/tokenizer.ts';

export interface SearchResult {
  query: string;
  engine: 'arrow' | 'classic';
  recipe: string;
  engine_fallback?: string;
  interpreted: { words: string; filters: SearchFilters; phrases: string[]; order: 'relevance' | 'taken_at' };
  hits: FoundHit[];
}

export class SearchService {
  private readonly filters: FilterResolver;

  constructor(private readonly store: Store) {
    this.filters = new FilterResolver(store);
  }

  /** One dimension (SPEC 4.5), answered by search narrowed to its kinds of evidence; location asks GPS places first. */
  async typed(auth: AuthContext, type: (typeof SEARCH_TYPES)[number], req: Omit<SearchRequest, 'rerank' | 'search_options'>) {
    if (type === 'music') {
      return {
        query: req.query,
        type,
        engine: 'arrow' as const,
        recipe: 'none',
        interpreted: { words: req.query, filters: {}, phrases: [], order: 'relevance' as const },
        hits: [],
        unavailable: 'music recognition is not available on this deployment',
      };
    }
    let query = req.query;
    if (type === 'emotion') {
      const emotions = emotionsIn(req.query);
      if (emotions.length === 0) throw new AppError('invalid_request', 422, `Name an expression: ${EMOTION_NAMES.join(', ')}.`);
      query = emotions.join(' ');
    }
    const weights = type === 'location' ? { place: 4 } : undefined;
    const r = await this.search(auth, { ...req, query, rerank: false, search_options: { modalities: TYPED_MODALITIES[type], weights, interpret: false } });
    return { ...r, query: req.query, type };
  }

  async search(auth: AuthContext, req: SearchRequest): Promise<SearchResult> {
    const workspaceIds = this.searchable(auth, req.workspace_ids);
    if (req.video_id !== undefined && !workspaceIds.some((w) => this.store.assets.findVisible(req.video_id as string, w))) throw Errors.notFound('Video');
    const order = req.search_options?.order ?? 'relevance';

    // What the words say, then the filters given, which win where both speak.
    const read =
      req.search_options?.interpret === false
        ? { words: req.query, filters: {}, phrases: [] }
        : interpret(req.query, {
            now: new Date(clock.now()),
            isPlace: (phrase) => this.filters.placeNames(workspaceIds).has(fold(phrase)),
            personNamed: (phrase) => this.store.people.namedInWorkspace(auth.workspaceId, phrase)?.id ?? null,
          });
    const filters: SearchFilters = { ...read.filters, ...(req.search_options?.filters ?? {}) };
    const resolved = this.filters.resolve(auth, workspaceIds, filters);
    const interpreted = { words: read.words, filters, phrases: read.phrases, order };

    const terms = queryTerms(read.words);
    if (terms.length === 0 && !hasFilters(resolved)) throw new AppError('invalid_request', 422, 'The query has no words to search for.');
    const scope = { workspaceIds, assetId: req.video_id, limit: Math.min(2000, req.limit * 20), filters: resolved };
    const engine = req.engine ?? this.store.workspaces.defaultEngine(auth.workspaceId);
    if (terms.length === 0) {
      // Only filters: what holds, newest first.
      const moments = new Moments(momentKey(() => 0));
      for (const e of this.store.search.browse({ ...scope, engine, limit: req.limit })) moments.offer(e, 1, 'lexical');
      const ranked = moments.ranked(false);
      for (const m of ranked) m.evidence = [{ retriever: 'filters', modality: 'metadata', score: 1 }];
      return {
        query: req.query,
        engine,
        recipe: 'filters',
        interpreted,
        hits: this.ordered(toHits(this.store, ranked, [], req.workspace_ids !== undefined), 'taken_at'),
      };
    }

    const allowed = req.search_options?.modalities;
    const weights = req.search_options?.weights ?? {};
    const phrase = read.words.trim().toLowerCase();
    const shots = new Map<string, Array<{ idx: number; start_s: number; end_s: number }>>();
    const moments = new Moments(
      momentKey((assetId, t) => {
        let list = shots.get(assetId);
        if (!list) shots.set(assetId, (list = this.store.media.shots(assetId)));
        return list.find((s) => t >= s.start_s && t < s.end_s)?.idx ?? Math.floor(t);
      }),
    );

    const found = lexical(this.store, terms, scope, engine);
    for (const { entry, weight } of found.candidates) {
      if (allowed && !allowed.includes(entry.modality)) continue;
      const score = -entry.rank * weight * (weights[entry.modality] ?? 1);
      moments.offer(entry, req.rerank ? score * rerankBoost(entry.text, terms, phrase) : score, 'lexical');
    }
    if (!allowed || allowed.includes('person')) offerNamedPeople(this.store, moments, terms, { ...scope, engine: found.engine, weight: weights.person ?? 1 });
    moments.normalizeEvidence();

    const used: string[] = [];
    const denseLists = [];
    for (const model of [TEXT_EMBEDDING_MODEL, PICTURE_EMBEDDING_MODEL] as const) {
      // A model whose vectors hold none of the kinds of evidence asked for is not asked.
      if (allowed && !EMBEDDED_MODALITIES[model].some((m) => allowed.includes(m))) continue;
      const near = await nearestByMeaning(this.store, model, read.words, { ...scope, engine: found.engine });
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
      hits: this.ordered(toHits(this.store, ranked, [...terms, ...found.related.keys()], req.workspace_ids !== undefined), order),
    };
  }

  private ordered(hits: FoundHit[], order: 'relevance' | 'taken_at'): FoundHit[] {
    if (order === 'relevance') return hits;
    const ms = (h: FoundHit) => (h.taken_at ? Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(h.taken_at) ? h.taken_at : `${h.taken_at}Z`) : -Infinity);
    return [...hits].sort((a, b) => ms(b) - ms(a));
  }

  /** The workspaces a search may read: the key's own, or those asked for that the key may search. */
  private searchable(auth: AuthContext, asked: string[] | undefined): string[] {
    return asked ? [...new Set(new WorkspacesService(this.store).resolve(auth, asked))] : [auth.workspaceId];
  }
}
