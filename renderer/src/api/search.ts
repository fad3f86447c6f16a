// Search across the workspace.
import { api, data, type Body, type Data } from './client.ts';

type SearchRequest = Body<'/api/v1/search', 'post'>;
export type SearchFilters = NonNullable<NonNullable<SearchRequest['search_options']>['filters']>;
export type SearchResponse = Data<'/api/v1/search', 'post'>;
export type SearchHit = SearchResponse['hits'][number];
export type SearchMoment = NonNullable<SearchHit['moments']>[number];
export type SearchFacets = SearchResponse['facets'];

export interface SearchAsk {
  filters?: SearchFilters;
  order?: 'relevance' | 'taken_at';
  offset?: number;
  /** One hit per asset, with its moments (the results screen), or one per moment. */
  groupBy?: 'asset' | 'moment';
  /** Only this asset (its moments for a query). */
  videoId?: string;
}

export const search = (query: string, ask: SearchAsk = {}, limit = 40) =>
  data(
    api().POST('/api/v1/search', {
      body: {
        query,
        limit,
        rerank: true,
        ...(ask.offset ? { offset: ask.offset } : {}),
        ...(ask.groupBy ? { group_by: ask.groupBy } : {}),
        ...(ask.videoId ? { video_id: ask.videoId } : {}),
        ...(ask.filters || ask.order === 'taken_at' ? { search_options: { ...(ask.filters ? { filters: ask.filters } : {}), order: ask.order } } : {}),
      },
    }),
  );
