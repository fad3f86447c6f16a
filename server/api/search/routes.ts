// /search (SPEC 4.5).
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { SearchRequest, SearchResponse, TypedSearchParams, TypedSearchRequest, TypedSearchResponse } from '../../contract/search.ts';
import { presenterFor } from '../present.ts';
import type { Services } from '../../services/index.ts';

export function searchRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/search',
      operationId: 'search',
      summary: 'One ranked list of moments, pages and photos across the workspace',
      access: 'read',
      body: SearchRequest,
      example: { query: 'a cat on a sofa', limit: 20, search_options: { filters: { kinds: ['image'] } } },
      response: SearchResponse,
      handler: async ({ auth, body, ctx }) => presenterFor(s.signer, ctx).hits(await s.search.search(auth, body)),
    }),
    defineRoute({
      method: 'post',
      path: '/search/:type',
      operationId: 'searchByType',
      summary: 'Search one dimension: character, location, music or emotion',
      access: 'read',
      params: TypedSearchParams,
      body: TypedSearchRequest,
      example: { query: 'applause', limit: 10 },
      response: TypedSearchResponse,
      handler: async ({ auth, params, body, ctx }) => presenterFor(s.signer, ctx).hits(await s.search.typed(auth, params.type, body)),
    }),
  ];
}
