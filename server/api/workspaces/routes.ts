// /workspaces (SPEC 4.4, 5.7): the workspaces the calling key reaches.
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { WorkspacesView } from '../../contract/workspaces.ts';
import type { Services } from '../../services/index.ts';

export function workspaceRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workspaces',
      operationId: 'listWorkspaces',
      summary: "The key's own workspace and those it may search (workspace_ids of federated search), with whether it may write there and asset counts",
      access: 'read',
      response: WorkspacesView,
      handler: ({ auth }) => ({ workspaces: s.workspaces.reachable(auth) }),
    }),
  ];
}
