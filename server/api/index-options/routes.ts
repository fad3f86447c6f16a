// /index-options (SPEC 2.8, 4.4).
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { IndexOptionsView } from '../../contract/index-options.ts';
import { IndexOptionsInput } from '../../contract/stages.ts';
import type { Services } from '../../services/index.ts';
import { z } from 'zod';
import { Errors } from '../../errors.ts';

export function indexOptionsRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/index-options',
      operationId: 'getIndexOptions',
      summary: 'Stage catalogue, workspace overrides and effective options',
      access: 'read',
      response: IndexOptionsView,
      handler: ({ auth }) => s.indexOptions.view(auth.workspaceId),
    }),
    defineRoute({
      method: 'put',
      path: '/index-options',
      operationId: 'setIndexOptions',
      summary: 'Set the workspace defaults ({} clears them)',
      access: 'write',
      // Validated by the service so that problems answer invalid_options, as on upload.
      body: z.unknown(),
      bodyDoc: IndexOptionsInput,
      example: { ocr: { languages: ['en', 'hi'] }, captions: false },
      response: IndexOptionsView,
      handler: ({ auth, body, ctx }) => {
        if (!ctx.request.length && !ctx.get('Transfer-Encoding')) {
          throw Errors.invalidRequest([{ path: 'body', message: 'a JSON object is required; send {} to clear' }]);
        }
        return s.indexOptions.put(auth.workspaceId, body);
      },
    }),
  ];
}
