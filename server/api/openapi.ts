// The OpenAPI document, generated from the route declarations and their zod contracts. Every status a
// route can answer is listed (no `default`): those of its shape (below) and the ones it declares.
import { z } from 'zod';
import type { AnyRouteSpec } from './route.ts';
import { ErrorEnvelope, listEnvelope, successEnvelope } from '../contract/common.ts';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'unauthorized: no key, or a key that is not valid, expired or revoked',
  403: 'forbidden: the key lacks the scope, the workspace is out of its reach or read-only, or the Host or Origin is foreign',
  404: 'not_found: no such resource in the caller workspace (also one named in the query or body)',
  405: 'method_not_allowed: the path does not take this method (Allow lists those it does)',
  409: 'conflict or busy: the resource is in a state that does not allow this now',
  413: 'the request body or upload is too large',
  415: 'the request body is not of a supported type or encoding',
  422: 'invalid_request / invalid_json / invalid_options: a parameter, the query or the body does not match the contract (details say which), or cannot be carried out',
  429: 'rate_limited: too many requests; Retry-After says when to try again',
  500: 'internal_error: an unexpected fault, logged with the request id',
  503: 'unavailable: the service cannot answer this now (the message says why)',
  507: 'no_space: the disk holding the data folder is full; nothing was stored',
};

/**
 * JSON Schema as OpenAPI 3.1 tools read it. Tuples (`prefixItems`, which several tools do not read)
 * become arrays of their one item type with a fixed length.
 */
function normalise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalise);
  if (!node || typeof node !== 'object') return node;
  const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, normalise(v)])) as Record<string, unknown>;
  const prefix = o.prefixItems as unknown[] | undefined;
  if (Array.isArray(prefix) && prefix.every((p) => JSON.stringify(p) === JSON.stringify(prefix[0]))) {
    delete o.prefixItems;
    o.items = prefix[0];
    o.minItems = prefix.length;
    o.maxItems = prefix.length;
  }
  return o;
}

function schema(t: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(t, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return normalise(json) as Record<string, unknown>;
}

function openApiPath(koaPath: string): string {
  return koaPath.replace(/:(\w+)/g, '{$1}');
}

function parameters(spec: AnyRouteSpec): unknown[] {
  const out: unknown[] = [];
  for (const [where, t] of [
    ['path', spec.params],
    ['query', spec.query],
  ] as const) {
    if (!t) continue;
    const json = schema(t, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

/** The error statuses a route of this shape can answer, and those it declares. */
function errorStatuses(spec: AnyRouteSpec): number[] {
  const out = new Set<number>([403, 429, 500]); // Host/Origin guard, rate limit, a fault
  if (spec.access !== 'public') {
    out.add(401);
    out.add(503); // the database held by another process past the busy timeout
  }
  if (spec.params || spec.query || spec.body || spec.bodyDoc || spec.multipart) {
    out.add(422);
    out.add(404);
  }
  if (spec.body || spec.bodyDoc || spec.multipart) {
    out.add(413);
    out.add(415);
  }
  for (const s of spec.errors ?? []) out.add(s);
  return [...out].sort((a, b) => a - b);
}

/**
 * A raw answer's schema by its content type, as generators read it: text as a string, JSON as an
 * object, anything else as binary (`format: binary` for OpenAPI 3.0 tools, `contentMediaType` for 3.1).
 */
function rawSchema(type: string): Record<string, unknown> {
  if (type === 'application/json') return { type: 'object' };
  // SSE-aware tools read a stream's schema as each event's, generators as the whole body's: any value.
  if (type === 'text/event-stream') return { description: 'server-sent events, each `event: NAME` and `data: JSON` (see the summary)' };
  if (type.startsWith('text/')) return { type: 'string' };
  return { type: 'string', format: 'binary', ...(type.includes('*') ? {} : { contentMediaType: type }) };
}

/**
 * multipart/form-data: the text fields of the route's contract, plus the binary `file` part. A text
 * field that carries JSON says so (`contentMediaType`, `contentSchema`) and gets an encoding entry.
 */
function multipartBody(fields: z.ZodType, jsonParts: Record<string, z.ZodType>, example: Record<string, unknown> | undefined): Record<string, unknown> {
  const json = schema(fields, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const properties: Record<string, Record<string, unknown>> = {
    file: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream', description: 'the file: a video, photo or document' },
    ...json.properties,
  };
  const encoding: Record<string, unknown> = { file: { contentType: 'application/octet-stream' } };
  for (const [name, t] of Object.entries(jsonParts)) {
    properties[name] = { ...properties[name], contentMediaType: 'application/json', contentSchema: schema(t, 'input') };
    encoding[name] = { contentType: 'application/json' };
  }
  return {
    schema: { ...json, properties, required: ['file', ...(json.required ?? [])] },
    encoding,
    ...(example ? { example } : {}),
  };
}

export function buildOpenApi(routes: readonly AnyRouteSpec[], version: string): Record<string, unknown> {
  const ids = new Map(routes.map((r) => [`${r.method} ${r.path}`, r.operationId]));
  if (new Set(ids.values()).size !== routes.length) throw new Error('an operationId is used by two routes');
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = { $ref: '#/components/schemas/Error' };
  for (const spec of routes) {
    const p = (paths[`/api/v1${openApiPath(spec.path)}`] ??= {});
    const responses: Record<string, unknown> = {};
    const op: Record<string, unknown> = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: spec.tags ?? [spec.path.split('/')[1] || 'system'],
      parameters: parameters(spec),
      security: spec.access === 'public' ? [] : [{ apiKey: [] }, { bearer: [] }],
      'x-scope': spec.access,
      responses,
    };
    const bodyType = spec.bodyDoc ?? spec.body;
    if (spec.multipart) {
      op.requestBody = { required: true, content: { 'multipart/form-data': multipartBody(spec.multipart, spec.multipartJson ?? {}, spec.example) } };
    } else if (bodyType) {
      const example = spec.example ? { example: spec.example } : {};
      // A request without a body is read as {}: where {} is a valid body, the body may be left out.
      const required = Boolean(spec.bodyDoc) || !bodyType.safeParse({}).success;
      op.requestBody = { required, content: { 'application/json': { schema: schema(bodyType, 'input'), ...example } } };
    }
    let success: Record<string, unknown>;
    if (spec.kind !== 'raw') {
      const envelope = spec.kind === 'list' ? listEnvelope(spec.response) : successEnvelope(spec.response);
      success = { description: 'Success', content: { 'application/json': { schema: schema(envelope) } } };
    } else {
      success = {
        description: 'Success',
        content: Object.fromEntries((spec.produces ?? ['application/octet-stream']).map((t) => [t, { schema: rawSchema(t) }])),
      };
    }
    if (spec.links) {
      success.links = Object.fromEntries(
        Object.entries(spec.links).map(([name, l]) => {
          const operationId = ids.get(l.to);
          if (!operationId) throw new Error(`link ${name} of ${spec.path} leads to no route: ${l.to}`);
          return [name, { operationId, parameters: l.parameters }];
        }),
      );
    }
    for (const status of [spec.status ?? 200, ...(spec.alsoStatus ?? [])]) responses[String(status)] = success;
    for (const status of errorStatuses(spec)) {
      responses[String(status)] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: errorRef } } };
    }
    p[spec.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Media Index local API', version },
    servers: [{ url: 'http://127.0.0.1:7717' }],
    components: {
      schemas: { Error: schema(ErrorEnvelope) },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}
