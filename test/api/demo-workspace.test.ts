// Read-only demo workspaces (SPEC 5.7): seeded from a folder by the CLI, read and searched by their
// keys over HTTP, and every write endpoint of the OpenAPI document refused with 403 for every key,
// nothing stored.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { fingerprint } from '../helpers/fingerprint.ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { CLI } from '../helpers/serve.ts';

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const lastLine = (s: string) => s.trim().split('\n').at(-1)!;

describe('read-only demo workspaces', () => {
  const data = tempDir('mi-demo-');
  const folder = tempDir('mi-demo-src-');
  let t: TestServer;
  let writeKey: string;
  let readKey: string;

  beforeAll(async () => {
    fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(folder, 'a-text.pdf'));
    fs.mkdirSync(path.join(folder, 'office'));
    fs.copyFileSync(corpus('office/a-text.docx'), path.join(folder, 'office', 'a-text.docx'));
    const seeded = cli(['workspaces', 'create', 'demo', '--read-only', '--from', folder, '--data', data, '--workers', '1']);
    expect(seeded.stderr).not.toMatch(/refused/);
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toContain('created workspace demo');
    expect(seeded.stdout).toMatch(/2 indexed into workspace demo, 0 refused/);
    expect(seeded.stdout).toContain('workspace demo is read-only');
    expect(cli(['workspaces', '--data', data]).stdout).toMatch(/ demo {2}2 assets {2}0 keys {2}read-only\n/);
    writeKey = lastLine(cli(['keys', 'create', '--data', data, '--workspace', 'demo', '--scopes', 'read,write']).stdout);
    readKey = lastLine(cli(['keys', 'create', '--data', data, '--workspace', 'demo', '--scopes', 'read']).stdout);
    t = await startTestServer({}, data);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('answers reads and search to its keys, and says it is read-only', async () => {
    for (const key of [writeKey, readKey]) {
      const list = await t.api('GET', '/videos', { key });
      expect(list.status).toBe(200);
      expect(list.body.pagination.total).toBe(2);
      const ws = await t.api('GET', '/workspaces', { key });
      expect(ws.body.data.workspaces).toEqual([expect.objectContaining({ name: 'demo', own: true, may_write: false, read_only: true, asset_count: 2 })]);
      const hits = await t.api('POST', '/search', { key, json: { query: 'text' } });
      expect(hits.status).toBe(200);
      expect(hits.body.data.hits.length).toBeGreaterThan(0);
    }
  });

  it('refuses every write endpoint with 403 forbidden, for every key, and stores nothing', async () => {
    const docRes = await t.api('GET', '/openapi.json');
    expect(docRes.status, JSON.stringify(docRes.body).slice(0, 300)).toBe(200);
    const doc = docRes.body as { paths: Record<string, Record<string, { 'x-scope': string }>> };
    const assetId = (await t.api('GET', '/videos', { key: readKey })).body.data[0].video_id as string;
    const writes = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(([method, op]) => op['x-scope'] === 'write' && method !== 'get')
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path: p.replace(/^\/api\/v1/, '').replace(/\{(\w+)\}/g, (_m, n: string) => (n === 'id' ? assetId : 'x')),
          op,
        })),
    );
    expect(writes.length).toBeGreaterThanOrEqual(15);
    const before = fingerprint(t.server.store.db);
    for (const key of [writeKey, readKey]) {
      for (const w of writes) {
        const r = await t.api(w.method, w.path, { key, json: {} });
        expect({ route: `${w.method} ${w.path}`, status: r.status, code: r.body?.error?.code }).toEqual({
          route: `${w.method} ${w.path}`,
          status: 403,
          code: 'forbidden',
        });
      }
    }
    const up = await t.upload(writeKey, corpus('docs/a-text.pdf'));
    expect(up.status).toBe(403);
    expect(up.body.error.message).toMatch(/read-only demo workspace/);
    expect(fingerprint(t.server.store.db)).toEqual(before);
  });

  it('becomes writable again only through the CLI on the data folder', async () => {
    await t.server.close();
    expect(cli(['workspaces', 'set', 'demo', '--writable', '--data', data]).stdout).toBe('workspace demo is writable\n');
    await t.restart();
    const ws = await t.api('GET', '/workspaces', { key: writeKey });
    expect(ws.body.data.workspaces[0]).toMatchObject({ may_write: true, read_only: false });
    expect((await t.api('PUT', '/index-options', { key: writeKey, json: {} })).status).toBe(200);
    expect((await t.api('PUT', '/index-options', { key: readKey, json: {} })).status).toBe(403);
  });
});
