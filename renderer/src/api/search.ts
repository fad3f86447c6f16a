// Search across the workspace.
import { api, data, type Body, type Data } from './client.ts';

type SearchRequest = Body<'/api/v1/search', 'post'>;
export type SearchFilters = NonNullable<NonNullable<SearchRequest['search_options']>['filters']>;
export type SearchResponse = Data<'/api/v1/search', 'post'>;
export type SearchHit = SearchResponse['hits'][number];

export const search = (query: string, options: { filters?: SearchFilters; order?: 'relevance' | 'taken_at' } = {}, limit = 40) =>
  data(
    api().POST('/api/v1/search', {
      body: {
        query,
        limit,
        rerank: true,
        ...(options.filters || options.order === 'taken_at'
          ? { search_options: { ...(options.filters ? { filters: options.filters } : {}), order: options.order } }
          : {}),
      },
    }),
  );
