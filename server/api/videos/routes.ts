// /videos: upload, list, detail, delete (SPEC 4.1, 4.2).
import { z } from 'zod';
import { defineListRoute, defineRoute, type AnyRouteSpec } from '../route.ts';
import { IdParam, PaginationQuery } from '../../contract/common.ts';
import { AssetDetail, AssetListItem, DeleteAck, UploadAck, UploadFields } from '../../contract/assets.ts';
import type { Services } from '../services.ts';
import { uploadMiddleware, uploadedFile } from '../upload.ts';

export function videoRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/videos',
      summary: 'Upload a video, photo or document and start indexing it',
      access: 'write',
      multipart: UploadFields.extend({ file: z.string().describe('the file (binary part named "file")') }),
      middleware: [uploadMiddleware(s.store.files.tmpDir, s.config.maxUploadBytes)],
      status: 201,
      response: UploadAck,
      handler: ({ auth, ctx }) =>
        s.assets.ingest(auth.workspaceId, uploadedFile(ctx as { file?: unknown }), (ctx.request as { body?: Record<string, unknown> }).body ?? {}),
    }),
    defineListRoute({
      method: 'get',
      path: '/videos',
      summary: 'List the assets of the workspace (newest first)',
      access: 'read',
      query: PaginationQuery,
      response: AssetListItem,
      handler: ({ auth, query }) => s.assets.list(auth.workspaceId, query.limit, query.offset),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id',
      summary: 'Asset detail with index options and report',
      access: 'read',
      params: IdParam,
      response: AssetDetail,
      handler: ({ auth, params }) => s.assets.detail(auth.workspaceId, params.id),
    }),
    defineRoute({
      method: 'delete',
      path: '/videos/:id',
      summary: 'Delete an asset (owner only): hidden at once, purged in the background',
      access: 'write',
      params: IdParam,
      response: DeleteAck,
      handler: ({ auth, params }) => s.assets.delete(auth.workspaceId, params.id),
    }),
  ];
}
