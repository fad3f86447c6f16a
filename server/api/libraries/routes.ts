// /libraries (not in the spec; docs/guide.md, "Libraries"): folders indexed in place and kept in sync.
import { defineListRoute, defineRoute, type AnyRouteSpec } from '../route.ts';
import { PaginationQuery } from '../../contract/common.ts';
import { Library, LibraryCreate, LibraryParams, LibraryProblem, LibraryRemoved, ScanAck } from '../../contract/libraries.ts';
import type { Services } from '../../services/index.ts';

/** OpenAPI links to what can be asked of a library, its id at `at` in the answer. */
const libraryLinks = (at: string) => ({
  GetLibrary: { to: 'get /libraries/:id', parameters: { id: at } },
  Problems: { to: 'get /libraries/:id/problems', parameters: { id: at } },
  Scan: { to: 'post /libraries/:id/scan', parameters: { id: at } },
  Remove: { to: 'delete /libraries/:id', parameters: { id: at } },
});

export function libraryRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/libraries',
      operationId: 'addLibrary',
      summary: 'Add a folder as a library: indexed in place, then kept in sync (write scope)',
      access: 'write',
      errors: [409],
      body: LibraryCreate,
      example: { path: '/home/ada/Pictures', exclude: ['*.tmp', 'Trash/**'] },
      status: 201,
      response: Library,
      links: libraryLinks('$response.body#/data/library_id'),
      handler: ({ auth, body }) => s.libraries.add(auth.workspaceId, body),
    }),
    defineListRoute({
      method: 'get',
      path: '/libraries',
      operationId: 'listLibraries',
      summary: "The workspace's libraries with their state and progress",
      access: 'read',
      query: PaginationQuery,
      response: Library,
      links: libraryLinks('$response.body#/data/0/library_id'),
      handler: ({ auth, query }) => s.libraries.list(auth.workspaceId, query.limit, query.offset),
    }),
    defineRoute({
      method: 'get',
      path: '/libraries/:id',
      operationId: 'getLibrary',
      summary: 'One library with its state and progress',
      access: 'read',
      params: LibraryParams,
      response: Library,
      handler: ({ auth, params }) => s.libraries.get(auth.workspaceId, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/libraries/:id/scan',
      operationId: 'scanLibrary',
      summary: 'Scan the library in full now (202; after the scan running, if any)',
      access: 'write',
      params: LibraryParams,
      status: 202,
      response: ScanAck,
      handler: ({ auth, params }) => s.libraries.scan(auth.workspaceId, params.id),
    }),
    defineListRoute({
      method: 'get',
      path: '/libraries/:id/problems',
      operationId: 'listLibraryProblems',
      summary: 'Paths of the library that are not indexed (refused or unreadable), with why',
      access: 'read',
      params: LibraryParams,
      query: PaginationQuery,
      response: LibraryProblem,
      handler: ({ auth, params, query }) => s.libraries.problems(auth.workspaceId, params.id, query.limit, query.offset),
    }),
    defineRoute({
      method: 'delete',
      path: '/libraries/:id',
      operationId: 'removeLibrary',
      summary: 'Remove a library: its assets leave the index; the files are never touched',
      access: 'write',
      params: LibraryParams,
      response: LibraryRemoved,
      handler: ({ auth, params }) => s.libraries.remove(auth.workspaceId, params.id),
    }),
  ];
}
