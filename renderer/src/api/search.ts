// Search across the workspace.
import type { SearchFilters, SearchHit, SearchResponse } from '../../../server/contract/search.ts';
import { api } from './client.ts';

export type { SearchFilters, SearchHit, SearchResponse };

export const search = (query: string, options: { filters?: SearchFilters; order?: 'relevance' | 'taken_at' } = {}, limit = 40) =>
  api<SearchResponse>('POST', '/search', {
    query,
    limit,
    rerank: true,
    ...(options.filters || options.order === 'taken_at'
      ? { search_options: { ...(options.filters ? { filters: options.filters } : {}), order: options.order } }
      : {}),
  });
