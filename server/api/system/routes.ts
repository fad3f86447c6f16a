// Health and the OpenAPI document; both public (no data), still behind the Host check.
import { z } from 'zod';
import { defineRawRoute, defineRoute, type AnyRouteSpec } from '../route.ts';
import type { Services } from '../../services/index.ts';
import { buildOpenApi } from '../openapi.ts';

export function systemRoutes(s: Services, allRoutes: () => readonly AnyRouteSpec[]): AnyRouteSpec[] {
  let doc: Record<string, unknown> | null = null;
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness and version',
      tags: ['system'],
      access: 'public',
      response: z.object({ status: z.literal('ok'), version: z.string() }),
      handler: () => ({ status: 'ok' as const, version: s.version }),
    }),
    defineRawRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API as an OpenAPI 3.1 document',
      tags: ['system'],
      access: 'public',
      produces: ['application/json'],
      handler: ({ ctx }) => {
        doc ??= buildOpenApi(allRoutes(), s.version);
        ctx.type = 'application/json';
        ctx.body = doc;
      },
    }),
  ];
}
