// /engines (SPEC 2.9, 4.4).
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { EnginesView } from '../../contract/index-options.ts';
import type { Services } from '../../services/index.ts';

export function engineRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/engines',
      operationId: 'getEngines',
      summary: 'Search engines, their status and the workspace default',
      access: 'read',
      response: EnginesView,
      handler: ({ auth }) => s.engines.list(auth.workspaceId),
    }),
  ];
}
