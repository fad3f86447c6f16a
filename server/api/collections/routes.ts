// /collections: albums of the workspace's assets (not in the spec; README, "Collections"), and
// /index: what indexing is doing for the workspace, pause, resume and retry.
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { presenterFor } from '../present.ts';
import { IdParam } from '../../contract/common.ts';
import {
  Collection,
  CollectionAssetsBody,
  CollectionAssetsResult,
  CollectionDeleted,
  CollectionPatch,
  CreateCollectionBody,
} from '../../contract/collections.ts';
import { IndexActivity, PauseAck, RetryAck, RetryRequest } from '../../contract/activity.ts';
import type { Services } from '../../services/index.ts';

export function collectionRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/collections',
      operationId: 'listCollections',
      summary: 'Collections (albums) of the workspace, by name, each with its size and cover',
      access: 'read',
      response: Collection.array(),
      handler: ({ auth, ctx }) => {
        const present = presenterFor(s.signer, ctx);
        return s.collections.list(auth.workspaceId).map((c) => present.collection(c));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/collections',
      operationId: 'createCollection',
      summary: 'Make a collection, with assets in it at once if given',
      access: 'write',
      body: CreateCollectionBody,
      example: { name: 'Lisbon 2019', video_ids: ['vid_01jd5b2x4k8w9q'] },
      status: 201,
      response: Collection,
      handler: ({ auth, body, ctx }) => presenterFor(s.signer, ctx).collection(s.collections.create(auth.workspaceId, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/collections/:id',
      operationId: 'getCollection',
      summary: 'One collection (its assets: GET /videos?collection_id=)',
      access: 'read',
      params: IdParam,
      response: Collection,
      handler: ({ auth, params, ctx }) => presenterFor(s.signer, ctx).collection(s.collections.get(auth.workspaceId, params.id)),
    }),
    defineRoute({
      method: 'patch',
      path: '/collections/:id',
      operationId: 'updateCollection',
      summary: 'Rename a collection or change its description',
      access: 'write',
      params: IdParam,
      body: CollectionPatch,
      example: { name: 'Lisbon, spring 2019' },
      response: Collection,
      handler: ({ auth, params, body, ctx }) => presenterFor(s.signer, ctx).collection(s.collections.update(auth.workspaceId, params.id, body)),
    }),
    defineRoute({
      method: 'delete',
      path: '/collections/:id',
      operationId: 'deleteCollection',
      summary: 'Delete a collection (its assets stay in the library)',
      access: 'write',
      params: IdParam,
      response: CollectionDeleted,
      handler: ({ auth, params }) => s.collections.delete(auth.workspaceId, params.id),
    }),
    defineRoute({
      method: 'post',
      path: '/collections/:id/assets',
      operationId: 'changeCollectionAssets',
      summary: 'Put assets in a collection and take others out (up to 500 ids each), in one step',
      access: 'write',
      params: IdParam,
      body: CollectionAssetsBody,
      example: { add: ['vid_01jd5b2x4k8w9q'], remove: [] },
      response: CollectionAssetsResult,
      handler: ({ auth, params, body }) => s.collections.change(auth.workspaceId, params.id, body.add, body.remove),
    }),
    defineRoute({
      method: 'get',
      path: '/index/activity',
      operationId: 'getIndexActivity',
      summary: 'What indexing is doing for the workspace: assets done of all, runs to come by stage, failed runs and why',
      access: 'read',
      response: IndexActivity,
      handler: ({ auth }) => s.assets.activity(auth.workspaceId),
    }),
    defineRoute({
      method: 'post',
      path: '/index/pause',
      operationId: 'pauseIndexing',
      summary: "Pause the indexing of the workspace's assets (runs under way finish); kept across restarts",
      access: 'write',
      response: PauseAck,
      handler: ({ auth }) => s.assets.pause(auth.workspaceId, true),
    }),
    defineRoute({
      method: 'post',
      path: '/index/resume',
      operationId: 'resumeIndexing',
      summary: "Resume the indexing of the workspace's assets",
      access: 'write',
      response: PauseAck,
      handler: ({ auth }) => s.assets.pause(auth.workspaceId, false),
    }),
    defineRoute({
      method: 'post',
      path: '/index/retry',
      operationId: 'retryFailedRuns',
      summary: "Run the failed stages of the workspace's assets again (with what depends on them): those another try may clear, or with `all` every one",
      access: 'write',
      body: RetryRequest,
      example: { all: false },
      status: 202,
      response: RetryAck,
      handler: ({ auth, body }) => s.assets.retryFailed(auth.workspaceId, body),
    }),
  ];
}
