// Search (SPEC 4.5): who may search what (the key's workspace, or those it may read that are asked
// for), typed search's dimensions; the steps themselves are search/pipeline.ts.
import type { Store } from '../store/index.ts';
import { WorkspacesService } from './workspaces.service.ts';
import { AppError, Errors } from '../errors.ts';
import type { SearchRequest, SEARCH_TYPES } from '../contract/search.ts';
import type { AuthContext } from '../contract/auth.ts';
import { EMOTION_NAMES, TYPED_MODALITIES, emotionsIn } from '../search/typed.ts';
import { FilterResolver } from '../search/resolve.ts';
import { Rankings, searchIndex, type SearchResult } from '../search/pipeline.ts';
export type { FoundHit } from '../search/hits.ts';

export class SearchService {
  private readonly filters: FilterResolver;
  /** The last searches' rankings, for their next pages (a page after the first is cut from its first page's ranking). */
  private readonly rankings = new Rankings(32, 5 * 60_000);

  constructor(private readonly store: Store) {
    this.filters = new FilterResolver(store);
  }

  /** One dimension (SPEC 4.5), answered by search narrowed to its kinds of evidence; location asks GPS places first. */
  async typed(auth: AuthContext, type: (typeof SEARCH_TYPES)[number], req: Omit<SearchRequest, 'rerank' | 'search_options' | 'group_by'>) {
    if (type === 'music') {
      return {
        query: req.query,
        type,
        engine: 'arrow' as const,
        recipe: 'none',
        interpreted: { words: req.query, filters: {}, phrases: [], order: 'relevance' as const, related: [] },
        hits: [],
        pagination: { limit: req.limit, offset: req.offset, total: 0, has_more: false },
        facets: { kinds: [], years: [], places: [], people: [], cameras: [], collections: [] },
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
    const r = await this.search(auth, {
      ...req,
      query,
      rerank: false,
      group_by: 'moment',
      search_options: { modalities: TYPED_MODALITIES[type], weights, interpret: false },
    });
    return { ...r, query: req.query, type };
  }

  async search(auth: AuthContext, req: SearchRequest): Promise<SearchResult> {
    const workspaceIds = this.searchable(auth, req.workspace_ids);
    if (req.video_id !== undefined && !workspaceIds.some((w) => this.store.assets.findVisible(req.video_id as string, w))) throw Errors.notFound('Video');
    return searchIndex(this.store, this.filters, req, { auth, workspaceIds, federated: req.workspace_ids !== undefined }, this.rankings);
  }

  /** The workspaces a search may read: the key's own, or those asked for that the key may search. */
  private searchable(auth: AuthContext, asked: string[] | undefined): string[] {
    return asked ? [...new Set(new WorkspacesService(this.store).resolve(auth, asked))] : [auth.workspaceId];
  }
}
