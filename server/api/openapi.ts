// The OpenAPI document, generated from the route declarations and their zod contracts.
import { z } from 'zod';
import type { AnyRouteSpec } from './route.ts';
import { ErrorEnvelope, listEnvelope, successEnvelope } from '../contract/common.ts';

function schema(t: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(t, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
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

export function buildOpenApi(routes: readonly AnyRouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const p = (paths[`/api/v1${openApiPath(spec.path)}`] ??= {});
    const op: Record<string, unknown> = {
      summary: spec.summary,
      tags: spec.tags ?? [spec.path.split('/')[1] || 'system'],
      parameters: parameters(spec),
      security: spec.access === 'public' ? [] : [{ apiKey: [] }, { bearer: [] }],
      'x-scope': spec.access,
      responses: {
        default: { description: 'Error', content: { 'application/json': { schema: schema(ErrorEnvelope) } } },
      },
    };
    const bodyType = spec.bodyDoc ?? spec.body;
    if (spec.multipart) {
      op.requestBody = { required: true, content: { 'multipart/form-data': { schema: schema(spec.multipart, 'input') } } };
    } else if (bodyType) {
      op.requestBody = { required: true, content: { 'application/json': { schema: schema(bodyType, 'input') } } };
    }
    if (spec.kind !== 'raw') {
      const envelope = spec.kind === 'list' ? listEnvelope(spec.response) : successEnvelope(spec.response);
      (op.responses as Record<string, unknown>)[String(spec.status ?? 200)] = {
        description: 'Success',
        content: { 'application/json': { schema: schema(envelope) } },
      };
    } else {
      (op.responses as Record<string, unknown>)['200'] = { description: 'Success' };
    }
    p[spec.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Media Index local API', version },
    servers: [{ url: 'http://127.0.0.1:7717' }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}
