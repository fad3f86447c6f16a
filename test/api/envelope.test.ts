import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';

describe('envelope, errors and limits (SPEC 2.1, 7, 8)', () => {
  let t: TestServer;
  let key: string;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestServer({ workers: 0 });
    key = t.key('main');
    for (const f of ['docs/a-text.pdf', 'office/a-text.docx', 'scenes/skimage/chelsea.png', 'video/imageio/realshort.mp4', 'office/a-text.odt']) {
      const r = await t.upload(key, corpus(f));
      expect(r.status, f).toBe(201);
      ids.push(r.body.data.video_id);
    }
  });
  afterAll(() => t.close());

  it('wraps a success in {success, data, meta: {request_id, timing_ms}}', async () => {
    const r = await t.api('GET', `/videos/${ids[0]}`, { key });
    expect(r.body.success).toBe(true);
    expect(r.body.meta.request_id).toMatch(/^req_/);
    expect(typeof r.body.meta.timing_ms).toBe('number');
    expect(r.headers.get('x-request-id')).toBe(r.body.meta.request_id);
  });

  it('paginates lists with limit, offset, total and has_more until has_more is false', async () => {
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const r = await t.api('GET', `/videos?limit=2&offset=${offset}`, { key });
      expect(r.status).toBe(200);
      expect(r.body.pagination).toEqual({ limit: 2, offset, total: 5, has_more: offset + r.body.data.length < 5 });
      seen.push(...r.body.data.map((a: { video_id: string }) => a.video_id));
      if (!r.body.pagination.has_more) break;
      offset += r.body.data.length;
    }
    expect(seen.sort()).toEqual([...ids].sort());
    const past = await t.api('GET', '/videos?offset=50', { key });
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination).toEqual({ limit: 50, offset: 50, total: 5, has_more: false });
    const max = await t.api('GET', '/videos?limit=200', { key });
    expect(max.status).toBe(200);
  });

  it('refuses limits outside 1..200 and negative offsets with 422', async () => {
    for (const q of ['limit=201', 'limit=0', 'limit=-1', 'limit=abc', 'offset=-1', 'limit=2.5']) {
      const r = await t.api('GET', `/videos?${q}`, { key });
      expect(r.status, q).toBe(422);
      expect(r.body.success).toBe(false);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.status).toBe(422);
    }
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const r = await t.api('GET', '/nothing-here', { key });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, error: { code: 'not_found', status: 404 } });
    // Outside /api: the app where it is built (an app route gets its page), else nothing.
    const missing = await fetch(`${t.url}/missing.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { success: boolean }).success).toBe(false);
  });

  it('serves the built app outside /api with a strict content policy, and says so when it is not built', async () => {
    const ui = tempDir('mi-ui-');
    fs.writeFileSync(path.join(ui, 'index.html'), '<!doctype html><title>app</title>');
    const withUi = await startTestServer({ uiDir: ui });
    try {
      for (const p of ['/', '/library', '/people/per_x']) {
        const r = await fetch(`${withUi.url}${p}`);
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await r.text()).toContain('<title>app</title>');
        expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
        expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(r.headers.get('access-control-allow-origin')).toBeNull();
      }
      expect((await fetch(`${withUi.url}/api/v1/nothing-here`)).status).toBe(404);
    } finally {
      await withUi.close();
      fs.rmSync(ui, { recursive: true, force: true });
    }
    const bare = await startTestServer({ uiDir: path.join(ui, 'absent') });
    try {
      const r = await fetch(`${bare.url}/`);
      expect(r.status).toBe(404);
      expect(await r.text()).toMatch(/npm run build/);
    } finally {
      await bare.close();
    }
  });

  it('answers malformed JSON with 422', async () => {
    const r = await t.api('PUT', '/index-options', { key, rawBody: '{"ocr": tru', headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('invalid_json');
  });

  it('answers a JSON endpoint given another content type with 415', async () => {
    const r = await t.api('PUT', '/index-options', { key, rawBody: 'ocr=false', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_media_type');
  });

  it('puts rate-limit headers on every response', async () => {
    for (const r of [await t.api('GET', '/videos', { key }), await t.api('GET', '/videos'), await t.api('GET', '/missing', { key })]) {
      expect(Number(r.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
      expect(r.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
  });

  it('answers a method a path does not take with 405 and Allow (the most specific route), OPTIONS with 204', async () => {
    // fetch refuses to send TRACE; node:http does.
    const trace = await new Promise<{ status: number; allow: string; body: string }>((resolve, reject) => {
      const req = http.request(`${t.url}/api/v1/people/recluster`, { method: 'TRACE', headers: { 'X-API-Key': key } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, allow: String(res.headers.allow), body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(trace.status).toBe(405);
    expect(JSON.parse(trace.body).error.code).toBe('method_not_allowed');
    // /people/recluster is not /people/{id}: POST only, not GET or PATCH.
    expect(trace.allow).toBe('POST');
    const get = await t.api('GET', '/people/recluster', { key });
    expect(get.status).toBe(404); // GET /people/{id} with the id "recluster": no such person
    const facets = await t.api('OPTIONS', '/videos/facets', { key });
    expect([facets.status, facets.headers.get('allow')]).toEqual([204, 'GET, HEAD']);
    const put = await t.api('PUT', '/videos', { key, json: {} });
    expect([put.status, put.headers.get('allow'), put.body.error.code]).toEqual([405, 'GET, HEAD, POST', 'method_not_allowed']);
    const options = await t.api('OPTIONS', '/videos/vid_x', { key });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'DELETE, GET, HEAD, PATCH']);
    expect((await t.api('GET', '/no/such/endpoint', { key })).status).toBe(404);
  });

  it('lists in the OpenAPI document every status a route answers, with links between operations', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    const recluster = doc.paths['/api/v1/people/recluster'].post.responses;
    expect(Object.keys(recluster)).toEqual(expect.arrayContaining(['200', '202', '401', '403', '409', '422', '429']));
    expect(recluster.default).toBeUndefined();
    expect(recluster['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    const upload = doc.paths['/api/v1/videos'].post.responses;
    expect(Object.keys(upload)).toEqual(expect.arrayContaining(['201', '413', '415', '422', '507']));
    expect(upload['201'].links.GetAsset).toEqual({ operationId: 'getAsset', parameters: { id: '$response.body#/data/video_id' } });
    // Tuples are arrays of a fixed length (tools read `items`, not `prefixItems`).
    expect(JSON.stringify(doc)).not.toContain('prefixItems');
    const frame = doc.paths['/api/v1/videos/{id}/frames/{name}'].get.responses;
    expect(Object.keys(frame['200'].content)).toContain('image/jpeg');
    expect(Object.keys(frame)).toEqual(expect.arrayContaining(['206', '416']));
  });

  it('serves an OpenAPI document generated from the contracts', async () => {
    const r = await t.api('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    for (const p of ['/api/v1/videos', '/api/v1/videos/{id}', '/api/v1/index-options', '/api/v1/engines']) {
      expect(Object.keys(r.body.paths)).toContain(p);
    }
    const upload = r.body.paths['/api/v1/videos'].post;
    expect(upload['x-scope']).toBe('write');
    expect(Object.keys(upload.requestBody.content)).toEqual(['multipart/form-data']);
    const detail = r.body.paths['/api/v1/videos/{id}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(detail.properties.data.properties)).toEqual(expect.arrayContaining(['video_id', 'kind', 'page_count', 'status', 'index', 'gen1_tier']));
    const put = r.body.paths['/api/v1/index-options'].put.requestBody.content['application/json'].schema;
    expect(Object.keys(put.properties)).toContain('ocr');
  });
});

describe('rate limiting', () => {
  let t: TestServer;
  afterAll(() => t.close());

  it('answers 429 with Retry-After past the configured rate, per key', async () => {
    t = await startTestServer({ rateLimit: { max: 3, windowMs: 60_000 } });
    const a = t.key('one');
    const b = t.key('two');
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await t.api('GET', '/videos', { key: a });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last!.body.error.code).toBe('rate_limited');
    const retry = Number(last!.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await t.api('GET', '/videos', { key: b })).status).toBe(200);
  });

  it('opens a new window once the old one has passed', async () => {
    const t2 = await startTestServer({ rateLimit: { max: 1, windowMs: 300 } });
    try {
      const k = t2.key('w');
      expect((await t2.api('GET', '/videos', { key: k })).status).toBe(200);
      expect((await t2.api('GET', '/videos', { key: k })).status).toBe(429);
      await new Promise((r) => setTimeout(r, 350));
      expect((await t2.api('GET', '/videos', { key: k })).status).toBe(200);
    } finally {
      await t2.close();
    }
  });
});
