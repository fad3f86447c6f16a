// /models: not in the spec; lists the optional models (the desktop settings screen reads it).
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { ImportRequest, ModelParams, ModelsView, PullAck } from '../../contract/models.ts';
import type { Services } from '../../services/index.ts';

export function modelRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/models',
      operationId: 'listModels',
      summary: 'Optional models: installed or not, size, licence; and the execution provider',
      access: 'read',
      response: ModelsView,
      handler: () => s.modelPulls.catalogue(),
    }),
    defineRoute({
      method: 'post',
      path: '/models/:name/pull',
      operationId: 'pullModel',
      summary: 'Download a pinned optional model in the background (progress in GET /models); waiting stages then run',
      access: 'write',
      errors: [409],
      params: ModelParams,
      status: 202,
      response: PullAck,
      handler: ({ params }) => s.modelPulls.start(params.name),
    }),
    defineRoute({
      method: 'post',
      path: '/models/:name/import',
      operationId: 'importModel',
      summary:
        'Install an optional model from a folder or a file on this machine (no network): a pinned build is verified by checksum, another build of the model by its interface (progress in GET /models)',
      access: 'write',
      errors: [409],
      params: ModelParams,
      body: ImportRequest,
      example: { from: '/media/usb/models/clip-vit-b32' },
      status: 202,
      response: PullAck,
      handler: ({ params, body }) => s.modelPulls.startImport(params.name, body.from),
    }),
  ];
}
