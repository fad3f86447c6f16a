// Routes are declared once: method, path, scope and contracts. The same declaration validates the
// request, shapes the envelope and feeds the OpenAPI document.
import Router from '@koa/router';
import { z } from 'zod';
import type { Middleware } from 'koa';
import { AppError, Errors, detailsFromIssues } from '../errors.ts';
import type { AppContext, AppState } from './context.ts';
import type { AuthContext, Scope } from '../contract/auth.ts';
import type { PaginationQuery } from '../contract/common.ts';
import { timingMs } from './middleware/request-id.ts';

export type Access = 'public' | Scope;

interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: AuthContext;
  ctx: AppContext;
}

interface BaseSpec<P, Q, B> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  /** The operation's name in the OpenAPI document: what generated clients call their method. */
  operationId: string;
  summary: string;
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The body as documented, where the handler validates it itself (documentation only). */
  bodyDoc?: z.ZodType;
  /** multipart/form-data with these text fields and a binary `file` part (documentation only). */
  multipart?: z.ZodType;
  /** Text parts of `multipart` that carry JSON, with the schema of that JSON (documentation only). */
  multipartJson?: Record<string, z.ZodType>;
  /** A request body that works, for the document's examples (a test checks it against `body`). */
  example?: Record<string, unknown>;
  middleware?: Middleware[];
  status?: number;
  /** Other success statuses the handler may choose (documentation: same body as `status`). */
  alsoStatus?: number[];
  /**
   * Error statuses this route answers besides those every route of its shape may (documentation;
   * see openapi.ts): 409 busy, 422 a well-formed but impossible request, 503, 507 and the like.
   */
  errors?: number[];
  /** The content types a raw route answers with (documentation). */
  produces?: string[];
  /**
   * OpenAPI links from this route's success answer: name → the route they lead to ("get
   * /videos/:id") and its parameters as runtime expressions ("$response.body#/data/video_id").
   */
  links?: Record<string, { to: string; parameters: Record<string, string> }>;
  tags?: string[];
}

// Handlers are declared as methods: a route of specific types is then also a route of unknown
// ones (AnyRouteSpec), which is how the router and the OpenAPI document hold them all.
export interface ObjectRouteSpec<P, Q, B, R> extends BaseSpec<P, Q, B> {
  kind?: 'object';
  response: z.ZodType<R>;
  handler(input: Input<P, Q, B>): R | Promise<R>;
}

export interface ListRouteSpec<P, Q extends { limit: number; offset: number }, B, R> extends BaseSpec<P, Q, B> {
  kind: 'list';
  response: z.ZodType<R>;
  handler(input: Input<P, Q, B>): { items: R[]; total: number } | Promise<{ items: R[]; total: number }>;
}

/** Raw routes answer with something other than the JSON envelope (a document, a file). */
export interface RawRouteSpec<P, Q, B> extends BaseSpec<P, Q, B> {
  kind: 'raw';
  handler(input: Input<P, Q, B>): void | Promise<void>;
}

export type AnyRouteSpec =
  ObjectRouteSpec<unknown, unknown, unknown, unknown> | ListRouteSpec<unknown, PaginationQuery, unknown, unknown> | RawRouteSpec<unknown, unknown, unknown>;

export const defineRoute = <P = Record<string, never>, Q = Record<string, never>, B = undefined, R = unknown>(spec: ObjectRouteSpec<P, Q, B, R>) => spec;
export const defineListRoute = <P = Record<string, never>, Q extends { limit: number; offset: number } = PaginationQuery, B = undefined, R = unknown>(
  spec: Omit<ListRouteSpec<P, Q, B, R>, 'kind'>,
): ListRouteSpec<P, Q, B, R> => ({ ...spec, kind: 'list' });
export const defineRawRoute = <P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  spec: Omit<RawRouteSpec<P, Q, B>, 'kind'>,
): RawRouteSpec<P, Q, B> => ({ ...spec, kind: 'raw' });

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  // A query parameter given without a value (`?offset=`) is refused, not read as 0 or as absent.
  if (where === 'query' && value && typeof value === 'object') {
    const empty = Object.entries(value as Record<string, unknown>).filter(([, v]) => v === '' || (Array.isArray(v) && v.includes('')));
    if (empty.length) throw Errors.invalidRequest(empty.map(([k]) => ({ path: `query.${k}`, message: 'given without a value' })));
  }
  const r = schema.safeParse(value);
  if (!r.success) throw Errors.invalidRequest(detailsFromIssues(r.error.issues, where));
  return r.data;
}

export function requireAccess(state: AppState, access: Access): AuthContext {
  if (access === 'public') return state.auth as AuthContext;
  if (!state.auth) throw state.authError ?? Errors.unauthorized();
  if (!state.auth.scopes.has(access)) {
    throw Errors.forbidden(`This endpoint needs the ${access} scope; the key has ${[...state.auth.scopes].join(', ')}.`);
  }
  return state.auth;
}

/**
 * `X-Workspace-Id` (docs/decisions/0022-x-workspace-id.md): a key that may search several workspaces reads from the one
 * named (by id or name) — every read route answers as if the key belonged there, with the read scope
 * only. Writes stay with the key's own workspace: a write route with the header naming another
 * workspace is refused. A workspace outside the key's reach is 403, and nothing of it is returned.
 */
function inWorkspace(state: AppState, auth: AuthContext, access: Access): AuthContext {
  if (access === 'public') return auth;
  if (state.workspaceError) throw state.workspaceError;
  const id = state.workspaceId;
  if (!id || id === auth.workspaceId) return auth;
  if (access !== 'read') throw Errors.forbidden("Writes go to the key's own workspace; X-Workspace-Id may name another only for reads.");
  return { ...auth, workspaceId: id, scopes: new Set(['read'] as const), access: [], readOnly: true };
}

/** A read-only demo workspace (SPEC 5.7) answers reads and search to every key and refuses every change. */
function refuseChangeToReadOnly(auth: AuthContext, spec: AnyRouteSpec): void {
  if (spec.access === 'write' && auth.readOnly && spec.method !== 'get') {
    throw Errors.forbidden('This workspace is a read-only demo workspace: it can be read and searched, not changed.');
  }
}

export function mountRoutes(router: Router<AppState>, routes: readonly AnyRouteSpec[]): void {
  for (const spec of routes) {
    const handler: Middleware<AppState> = async (ctx) => {
      const auth = inWorkspace(ctx.state, requireAccess(ctx.state, spec.access), spec.access);
      const base = {
        params: parse(spec.params, ctx.params, 'params'),
        body: parse(spec.body, (ctx.request as { body?: unknown }).body, 'body'),
        auth,
        ctx: ctx as AppContext,
      };
      if (spec.kind === 'raw') {
        await spec.handler({ ...base, query: parse(spec.query, ctx.query, 'query') });
        return;
      }
      // Set before the handler, which may choose another status (202 against 200, say).
      ctx.status = spec.status ?? 200;
      if (spec.kind === 'list') {
        const query = parse(spec.query, ctx.query, 'query');
        const { items, total } = await spec.handler({ ...base, query });
        ctx.body = {
          success: true,
          data: items,
          pagination: { limit: query.limit, offset: query.offset, total, has_more: query.offset + items.length < total },
          meta: { request_id: ctx.state.requestId, timing_ms: timingMs(ctx.state) },
        };
        return;
      }
      const data = await spec.handler({ ...base, query: parse(spec.query, ctx.query, 'query') });
      ctx.body = { success: true, data, meta: { request_id: ctx.state.requestId, timing_ms: timingMs(ctx.state) } };
    };
    // Auth and scope are checked before any body is read (a read key never streams an upload).
    const gate: Middleware<AppState> = async (ctx, next) => {
      refuseChangeToReadOnly(inWorkspace(ctx.state, requireAccess(ctx.state, spec.access), spec.access), spec);
      if (spec.body && ctx.request.length && !ctx.is('application/json')) {
        throw new AppError('unsupported_media_type', 415, 'Send the request body as application/json.');
      }
      await next();
    };
    router[spec.method](spec.path, gate, ...((spec.middleware ?? []) as Middleware<AppState>[]), handler);
  }
}
