// Search across the workspace.
import type { SearchHit, SearchResponse } from '../../../server/contract/search.ts';
import { api } from './client.ts';

export type { SearchHit, SearchResponse };

export const search = (query: string, limit = 40) => api<SearchResponse>('POST', '/search', { query, limit, rerank: true });
