// /videos: upload, list, detail, delete (SPEC 4.1, 4.2).
import path from 'node:path';
import { presenterFor } from '../present.ts';
import { sendFile } from '../send-file.ts';
import { defineListRoute, defineRawRoute, defineRoute, type AnyRouteSpec } from '../route.ts';
import {
  FrameParams,
  FrameQuery,
  PageParams,
  PageView,
  RegionsQuery,
  RegionsView,
  SpeakerNameBody,
  SpeakerNamed,
  SpeakerParams,
  TranscriptView,
} from '../../contract/pages.ts';
import { PLAYABLE } from '../../contract/files.ts';
import { IdParam } from '../../contract/common.ts';
import {
  AssetDetail,
  AssetFacets,
  AssetLayout,
  AssetListItem,
  AssetListQuery,
  AssetMonths,
  BulkMarksBody,
  DeleteAck,
  MarksBody,
  MarksResult,
  OrientationBody,
  OrientationResult,
  ReindexAck,
  ReindexBody,
  UploadAck,
  UploadFields,
} from '../../contract/assets.ts';
import type { SearchFilters } from '../../contract/search.ts';
import { IndexOptionsInput } from '../../contract/stages.ts';
import type { Services } from '../../services/index.ts';
import { uploadMiddleware, uploadedFile } from '../upload.ts';

/** The list's query parameters as search filters. */
function listFilters(q: Partial<AssetListQuery>): SearchFilters {
  return {
    ...(q.kind ? { kinds: [q.kind] } : {}),
    ...(q.person ? { people: [q.person] } : {}),
    ...(q.place ? { place: q.place } : {}),
    ...(q.year ? { taken_after: `${q.year}-01-01T00:00:00Z`, taken_before: `${q.year + 1}-01-01T00:00:00Z` } : {}),
    ...(q.camera ? { camera: q.camera } : {}),
    ...(q.library_id ? { library_id: q.library_id } : {}),
    ...(q.collection_id ? { collection_id: q.collection_id } : {}),
    ...(q.favorite === 'true' ? { favorite: true } : {}),
  };
}

/** OpenAPI links to what can be asked of an asset, its id at `at` in the answer. */
const assetLinks = (at: string) => ({
  GetAsset: { to: 'get /videos/:id', parameters: { id: at } },
  FirstPage: { to: 'get /videos/:id/pages/:page', parameters: { id: at, page: '1' } },
  Regions: { to: 'get /videos/:id/regions', parameters: { id: at } },
  Transcript: { to: 'get /videos/:id/transcript', parameters: { id: at } },
  Xmp: { to: 'get /videos/:id/xmp', parameters: { id: at } },
  Ask: { to: 'post /recall/:video_id/ask', parameters: { video_id: at } },
  Reindex: { to: 'post /videos/:id/reindex', parameters: { id: at } },
  Delete: { to: 'delete /videos/:id', parameters: { id: at } },
});

export function videoRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/videos',
      operationId: 'uploadAsset',
      summary: 'Upload a video, photo or document and start indexing it',
      access: 'write',
      multipart: UploadFields,
      multipartJson: { options: IndexOptionsInput },
      example: { pipeline: 'arrow', options: '{"ocr": {"languages": ["en"]}, "captions": false}' },
      middleware: [uploadMiddleware(s.assets.uploadDir, s.config.maxUploadBytes)],
      status: 201,
      errors: [507],
      links: assetLinks('$response.body#/data/video_id'),
      response: UploadAck,
      handler: ({ auth, ctx }) =>
        s.assets.ingest(auth.workspaceId, uploadedFile(ctx as { file?: unknown }), (ctx.request as { body?: Record<string, unknown> }).body ?? {}),
    }),
    defineListRoute({
      method: 'get',
      path: '/videos',
      operationId: 'listAssets',
      summary: 'List the assets of the workspace: newest added (or taken) first, narrowed by kind, person, place, year, camera or library',
      access: 'read',
      query: AssetListQuery,
      response: AssetListItem,
      links: assetLinks('$response.body#/data/0/video_id'),
      handler: ({ auth, query, ctx }) => {
        const { items, total } = s.assets.list(auth, query.limit, query.offset, {
          order: query.order,
          filters: listFilters(query),
          ...(query.ids ? { ids: query.ids.split(',') } : {}),
        });
        const present = presenterFor(s.signer, ctx);
        return { items: items.map((a) => present.asset(a)), total };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/videos/months',
      operationId: 'getAssetMonths',
      summary: 'How many assets per month taken, newest first, under the list filters (a timeline scrubber)',
      access: 'read',
      query: AssetListQuery.omit({ limit: true, offset: true, order: true, ids: true }),
      response: AssetMonths,
      handler: ({ auth, query }) => s.assets.months(auth, listFilters(query)),
    }),
    defineRoute({
      method: 'put',
      path: '/videos/:id/orientation',
      operationId: 'turnPhoto',
      summary: 'Turn a photo as the owner sees it (clockwise degrees; null gives back the detected turn); kept in the index, the file is not written',
      access: 'write',
      params: IdParam,
      body: OrientationBody,
      example: { turn: 90 },
      response: OrientationResult,
      handler: ({ auth, params, body }) => s.assets.turn(auth.workspaceId, params.id, body.turn),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/layout',
      operationId: 'getAssetLayout',
      summary:
        'The id and shape of every asset of the timeline (newest taken first) under the list filters: a justified grid lays out its rows before their pages load',
      access: 'read',
      query: AssetListQuery.omit({ limit: true, offset: true, order: true, ids: true }),
      response: AssetLayout,
      handler: ({ auth, query }) => s.assets.layout(auth, listFilters(query)),
    }),
    defineRoute({
      method: 'post',
      path: '/videos/marks',
      operationId: 'markAssets',
      summary: "Set the workspace's own favourite and/or rating (0-5, null clears) of up to 500 assets; the files are not written",
      access: 'write',
      body: BulkMarksBody,
      example: { video_ids: ['vid_01jd5b2x4k8w9q'], favorite: true, rating: 4 },
      response: MarksResult,
      handler: ({ auth, body }) => {
        const { video_ids, ...m } = body;
        return s.assets.mark(auth.workspaceId, video_ids, m);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/videos/:id',
      operationId: 'markAsset',
      summary: "Set the workspace's own favourite and/or rating (0-5, null clears) of an asset; the file is not written",
      access: 'write',
      params: IdParam,
      body: MarksBody,
      example: { favorite: true, rating: 5 },
      response: MarksResult,
      handler: ({ auth, params, body }) => s.assets.mark(auth.workspaceId, [params.id], body),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/facets',
      operationId: 'getAssetFacets',
      summary: 'What the list can be narrowed by (kinds, years, places, cameras, people, libraries), with counts',
      access: 'read',
      response: AssetFacets,
      handler: ({ auth }) => s.assets.facets(auth.workspaceId),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id',
      operationId: 'getAsset',
      summary: 'Asset detail with index options and report',
      access: 'read',
      params: IdParam,
      response: AssetDetail,
      handler: ({ auth, params, ctx }) => presenterFor(s.signer, ctx).assetDetail(s.assets.detail(auth.workspaceId, params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id/pages/:page',
      operationId: 'getPage',
      summary: 'One page of a document: render, text, passages with boxes, regions',
      access: 'read',
      errors: [409],
      params: PageParams,
      response: PageView,
      handler: ({ auth, params, ctx }) => presenterFor(s.signer, ctx).framed(s.reads.page(auth.workspaceId, params.id, params.page)),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id/regions',
      operationId: 'getRegions',
      summary: 'Object, face and text boxes of a page (documents) or a moment (videos), or all of them',
      access: 'read',
      errors: [409],
      params: IdParam,
      query: RegionsQuery,
      response: RegionsView,
      handler: ({ auth, params, query, ctx }) => presenterFor(s.signer, ctx).framed(s.reads.regions(auth.workspaceId, params.id, query)),
    }),
    defineRoute({
      method: 'get',
      path: '/videos/:id/transcript',
      operationId: 'getTranscript',
      summary: 'Timed transcript of a video with the speaker of each segment, and who spoke when',
      access: 'read',
      params: IdParam,
      response: TranscriptView,
      handler: ({ auth, params }) => s.reads.transcript(auth.workspaceId, params.id),
    }),
    defineRoute({
      method: 'put',
      path: '/videos/:id/speakers/:speaker',
      operationId: 'nameSpeaker',
      summary:
        'Name a voice of a video (its number in the transcript\'s "Speaker N"; null takes the name away): every turn and segment of it, and typed search `character` finds it',
      access: 'write',
      params: SpeakerParams,
      body: SpeakerNameBody,
      example: { name: 'Ada Lovelace' },
      response: SpeakerNamed,
      handler: ({ auth, params, body }) => s.assets.nameSpeaker(auth.workspaceId, params.id, params.speaker, body.name),
    }),
    defineRawRoute({
      method: 'get',
      path: '/videos/:id/frames/:name',
      operationId: 'getFrame',
      summary: 'A frame or page image (signed URL from frame_url, or an API key)',
      access: 'public',
      params: FrameParams,
      query: FrameQuery,
      // A photo's original (its 1:1 zoom) is served in its own type: image/*.
      produces: ['image/jpeg', 'image/*', 'video/*', 'audio/*', 'application/octet-stream'],
      alsoStatus: [206],
      errors: [401, 416, 503],
      handler: async ({ params, query, ctx }) => {
        const file = await s.reads.frameFileReady(params.id, params.name, query, ctx.state.auth);
        // A signed URL names one version of a stored picture until it expires: the browser keeps it
        // without asking again (a new URL comes every 10 minutes, and the ETag answers 304 then).
        ctx.set(
          'Cache-Control',
          query.exp && query.sig ? `private, max-age=${Math.max(0, Number(query.exp) - Math.floor(Date.now() / 1000))}, immutable` : 'private, max-age=3600',
        );
        // A video is played: byte ranges, so a player can seek. Its playable copy is MP4; where the
        // browser plays the original, that is what comes.
        if (params.name === 'original') await sendFile(ctx, file, s.reads.originalType(params.id), { ranges: true });
        else if (params.name === PLAYABLE)
          await sendFile(ctx, file, path.basename(file) === PLAYABLE ? 'video/mp4' : s.reads.originalType(params.id), { ranges: true });
        else await sendFile(ctx, file, 'image/jpeg');
      },
    }),
    defineRawRoute({
      method: 'get',
      path: '/videos/:id/xmp',
      operationId: 'getXmp',
      summary: 'XMP sidecar of a photo: its named people as MWG face regions',
      access: 'read',
      params: IdParam,
      // application/octet-stream on request (Accept), for clients that read other types as bytes only.
      produces: ['application/rdf+xml', 'application/octet-stream'],
      handler: ({ auth, params, ctx }) => {
        // Names are the owner's: a workspace the photo is shared into does not get them.
        const asset = s.assets.owned(auth.workspaceId, params.id, 'export its face regions');
        ctx.type = ctx.accepts('application/rdf+xml', 'application/octet-stream') || 'application/rdf+xml';
        ctx.set('Content-Disposition', `attachment; filename="${asset.file_name.replace(/[^\w.-]+/g, '_')}.xmp"`);
        ctx.body = s.people.xmp(asset);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/videos/:id/reindex',
      operationId: 'reindexAsset',
      summary: 'Run stages again (all, or those named, with everything that depends on them); owner only',
      access: 'write',
      params: IdParam,
      body: ReindexBody,
      example: { stages: ['ocr'] },
      status: 202,
      response: ReindexAck,
      handler: ({ auth, params, body }) => s.assets.reindex(auth.workspaceId, params.id, body.stages),
    }),
    defineRoute({
      method: 'delete',
      path: '/videos/:id',
      operationId: 'deleteAsset',
      summary: 'Delete an asset (owner only): hidden at once, purged in the background',
      access: 'write',
      params: IdParam,
      response: DeleteAck,
      handler: ({ auth, params }) => s.assets.delete(auth.workspaceId, params.id),
    }),
  ];
}
