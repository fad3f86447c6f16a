// /keys: not in the spec; the workspace's own keys for the settings screen (write scope).
import { z } from 'zod';
import { defineRoute, type AnyRouteSpec } from '../route.ts';
import { CreateKeyBody, CreatedKeyView, KeysView } from '../../contract/keys.ts';
import type { Services } from '../../services/index.ts';

const KeyParam = z.object({ id: z.string().min(1).max(100) });

export function keyRoutes(s: Services): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/keys',
      operationId: 'listKeys',
      summary: "The workspace's API keys, without secrets",
      access: 'write',
      response: KeysView,
      handler: ({ auth }) => ({ keys: s.auth.keysOf(auth) }),
    }),
    defineRoute({
      method: 'post',
      path: '/keys',
      operationId: 'createKey',
      summary: 'A new key of this workspace (shown once); no scope beyond the caller’s',
      access: 'write',
      body: CreateKeyBody,
      example: { label: 'backup script', scopes: ['read'], expires_in: '30d' },
      status: 201,
      response: CreatedKeyView,
      links: { RevokeKey: { to: 'delete /keys/:id', parameters: { id: '$response.body#/data/key_id' } } },
      handler: ({ auth, body }) => s.auth.createOwnKey(auth, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/keys/:id',
      operationId: 'revokeKey',
      summary: 'Revoke a key of this workspace',
      access: 'write',
      params: KeyParam,
      response: z.object({ key_id: z.string(), revoked: z.literal(true) }),
      handler: ({ auth, params }) => s.auth.revokeOwnKey(auth, params.id),
    }),
  ];
}
