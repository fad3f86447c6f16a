// /videos: upload, list, detail, delete (SPEC 4.1, 4.2).
import { z } from 'zod';
import fs from 'node:fs';
import { originOf } from '../context.ts';
import { defineListRoute, defineRawRoute, defineRoute, type AnyRouteSpec } from '../route.ts';
import { Errors } from '../../errors.ts';
import { FrameParams, FrameQuery, PageParams, PageView, RegionsQuery, RegionsView, TranscriptView } from '../../contract/pages.ts';
import { IdParam, PaginationQuery } from '../../contract/common.ts';
import { AssetDetail, AssetListItem, DeleteAck, ReindexAck, ReindexBody, UploadAck, UploadFields } from '../../contract/assets.ts';
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
      handler: ({ auth, query, ctx }) => {
        const { items, total } = s.assets.list(auth.workspaceId, query.limit, query.offset);
        return { items: items.map((a) => ({ ...a, thumbnail_url: s.reads.thumbnailUrl(originOf(ctx), a.video_id) })), total };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id',
      summary: 'Asset detail with index options and report',
      access: 'read',
      params: IdParam,
      response: AssetDetail,
      handler: ({ auth, params, ctx }) => {
        const detail = s.assets.detail(auth.workspaceId, params.id);
        return { ...detail, thumbnail_url: s.reads.thumbnailUrl(originOf(ctx), detail.video_id), media_url: s.reads.mediaUrl(originOf(ctx), detail) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id/pages/:page',
      summary: 'One page of a document: render, text, passages with boxes, regions',
      access: 'read',
      params: PageParams,
      response: PageView,
      handler: ({ auth, params, ctx }) => s.reads.page(auth.workspaceId, params.id, params.page, originOf(ctx)),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id/regions',
      summary: 'Object, face and text boxes of a page (documents) or a moment (videos), or all of them',
      access: 'read',
      params: IdParam,
      query: RegionsQuery,
      response: RegionsView,
      handler: ({ auth, params, query, ctx }) => s.reads.regions(auth.workspaceId, params.id, query, originOf(ctx)),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id/transcript',
      summary: 'Timed transcript of a video with the speaker of each segment, and who spoke when',
      access: 'read',
      params: IdParam,
      response: TranscriptView,
      handler: ({ auth, params }) => s.reads.transcript(auth.workspaceId, params.id),
    }),
    defineRawRoute({
      method: 'get',
      path: '/videos/:id/frames/:name',
      summary: 'A frame or page image (signed URL from frame_url, or an API key)',
      access: 'public',
      params: FrameParams,
      query: FrameQuery,
      handler: async ({ params, query, ctx }) => {
        const file = await s.reads.frameFileReady(params.id, params.name, query, ctx.state.auth);
        let stat;
        try {
          stat = await fs.promises.stat(file);
        } catch {
          throw Errors.notFound('Frame');
        }
        ctx.set('Cache-Control', 'private, max-age=3600');
        if (params.name === 'original') {
          // A video's original, for a player: byte ranges, so it can seek.
          ctx.type = s.store.assets.byId(params.id)?.mime_type ?? 'application/octet-stream';
          ctx.set('Accept-Ranges', 'bytes');
          const range = byteRange(ctx.get('Range'), stat.size);
          if (range === 'unsatisfiable') {
            ctx.status = 416;
            ctx.set('Content-Range', `bytes */${stat.size}`);
            ctx.body = '';
            return;
          }
          if (range) {
            ctx.status = 206;
            ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`);
            ctx.length = range.end - range.start + 1;
            ctx.body = fs.createReadStream(file, range);
            return;
          }
        } else {
          ctx.type = 'image/jpeg';
        }
        ctx.length = stat.size;
        ctx.body = fs.createReadStream(file);
      },
    }),
    defineRawRoute({
      method: 'get',
      path: '/videos/:id/xmp',
      summary: 'XMP sidecar of a photo: its named people as MWG face regions',
      access: 'read',
      params: IdParam,
      handler: ({ auth, params, ctx }) => {
        const asset = s.assets.visible(auth.workspaceId, params.id);
        // Names are the owner's: a workspace the photo is shared into does not get them.
        if (asset.owned !== 1) throw Errors.forbidden('XMP face regions are exported by the owning workspace.');
        ctx.type = 'application/rdf+xml';
        ctx.set('Content-Disposition', `attachment; filename="${asset.file_name.replace(/[^\w.-]+/g, '_')}.xmp"`);
        ctx.body = s.people.xmp(asset);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/videos/:id/reindex',
      summary: 'Run stages again (all, or those named, with everything that depends on them); owner only',
      access: 'write',
      params: IdParam,
      body: ReindexBody,
      status: 202,
      response: ReindexAck,
      handler: ({ auth, params, body }) => s.assets.reindex(auth.workspaceId, params.id, body.stages),
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

/** One `bytes=a-b` range (the form players send), clamped to the file; null without a Range header. */
export function byteRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!header || !m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
