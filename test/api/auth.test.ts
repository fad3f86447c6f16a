import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { error: { code: string } }; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('auth (SPEC 5) at the HTTP level', () => {
  let t: TestServer;
  let writeKey: string;
  let readKey: string;
  let otherKey: string;
  let assetId: string;

  beforeAll(async () => {
    t = await startTestServer();
    writeKey = t.key('alpha', ['read', 'write']);
    readKey = t.key('alpha', ['read']);
    otherKey = t.key('beta', ['read', 'write']);
    const up = await t.upload(writeKey, corpus('docs/a-text.pdf'));
    expect(up.status).toBe(201);
    assetId = up.body.data.video_id;
  });
  afterAll(() => t.close());

  it('refuses a request without a key with 401 in the error envelope', async () => {
    const r = await t.api('GET', '/videos');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, error: { code: 'unauthorized', message: expect.any(String), status: 401 } });
  });

  it('refuses malformed and unknown keys with 401', async () => {
    for (const key of ['nope', `mi_${'a'.repeat(20)}_${'b'.repeat(43)}`, writeKey.slice(0, -1) + (writeKey.endsWith('A') ? 'B' : 'A')]) {
      const r = await t.api('GET', '/videos', { key });
      expect(r.status, key).toBe(401);
    }
  });

  it('accepts the key as X-API-Key and as Authorization: Bearer', async () => {
    expect((await t.api('GET', '/videos', { key: writeKey })).status).toBe(200);
    const r = await t.api('GET', '/videos', { headers: { Authorization: `Bearer ${readKey}` } });
    expect(r.status).toBe(200);
    expect(r.body.data.map((a: { video_id: string }) => a.video_id)).toContain(assetId);
  });

  it('answers 403 forbidden for a read-only key on every write endpoint, storing nothing', async () => {
    const up = await t.upload(readKey, corpus('docs/a-text.pdf'));
    expect(up.status).toBe(403);
    expect(up.body.error.code).toBe('forbidden');
    expect((await t.api('PUT', '/index-options', { key: readKey, json: {} })).body.error.code).toBe('forbidden');
    expect((await t.api('DELETE', `/videos/${assetId}`, { key: readKey })).status).toBe(403);
    const list = await t.api('GET', '/videos', { key: readKey });
    expect(list.body.pagination.total).toBe(1);
  });

  it("scopes every call to the key's workspace: another workspace's id is 404, never its data", async () => {
    const list = await t.api('GET', '/videos', { key: otherKey });
    expect(list.body.data).toEqual([]);
    const detail = await t.api('GET', `/videos/${assetId}`, { key: otherKey });
    expect(detail.status).toBe(404);
    expect(detail.body.error.code).toBe('not_found');
    expect(JSON.stringify(detail.body)).not.toContain('a-text.pdf');
    expect((await t.api('DELETE', `/videos/${assetId}`, { key: otherKey })).status).toBe(404);
  });

  it('refuses expired and revoked keys with 401', async () => {
    const expired = t.key('alpha', ['read'], { expiresInMs: 1 });
    await new Promise((r) => setTimeout(r, 5));
    const r = await t.api('GET', '/videos', { key: expired });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toMatch(/expired/);

    const doomed = t.key('alpha', ['read']);
    expect((await t.api('GET', '/videos', { key: doomed })).status).toBe(200);
    const id = t.server.store.keys.list().at(-1)!.id;
    t.server.services.auth.revoke(id);
    const after = await t.api('GET', '/videos', { key: doomed });
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/revoked/);
  });

  it('stores only a hash of each key', () => {
    const secret = writeKey.split('_').slice(2).join('_');
    const rows = t.server.store.db.prepare('SELECT * FROM api_keys').all();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(writeKey);
  });

  it('refuses a foreign Host header (DNS rebinding) and foreign Origins, and sends no CORS headers', async () => {
    const rebinding = await rawGet(`${t.url}/api/v1/videos`, { Host: 'evil.example:80', 'X-API-Key': writeKey });
    expect(rebinding.status).toBe(403);
    expect(rebinding.body.error.code).toBe('forbidden');

    const port = new URL(t.url).port;
    const local = await rawGet(`${t.url}/api/v1/videos`, { Host: `localhost:${port}`, 'X-API-Key': writeKey });
    expect(local.status).toBe(200);
    expect(local.headers['access-control-allow-origin']).toBeUndefined();

    const cross = await t.api('GET', '/videos', { key: writeKey, headers: { Origin: 'https://evil.example' } });
    expect(cross.status).toBe(403);
    const otherPort = await t.api('GET', '/videos', { key: writeKey, headers: { Origin: 'http://127.0.0.1:1' } });
    expect(otherPort.status).toBe(403);
    const same = await t.api('GET', '/videos', { key: writeKey, headers: { Origin: t.url } });
    expect(same.status).toBe(200);

    const preflight = await t.api('OPTIONS', '/videos', { headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('binds to 127.0.0.1 by default', () => {
    expect(t.config.host).toBe('127.0.0.1');
    expect(t.url.startsWith('http://127.0.0.1:')).toBe(true);
  });
});
