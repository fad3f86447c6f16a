// /keys at the HTTP level: a write key manages its own workspace's keys — list without secrets,
// create (shown once, never more scope than the caller), revoke — and nothing of another workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('/keys', () => {
  let t: TestServer;
  let admin: string;
  beforeAll(async () => {
    t = await startTestServer({ workers: 0 });
    admin = t.key('home');
  });
  afterAll(() => t.close());

  it('creates a key shown once, lists keys without secrets, and the new key works', async () => {
    const r = await t.api('POST', '/keys', { key: admin, json: { label: 'laptop script', scopes: ['read'], expires_in: '30d' } });
    expect(r.status).toBe(201);
    const created = r.body.data;
    expect(created).toMatchObject({ label: 'laptop script', scopes: ['read'], key: expect.stringMatching(/^mi_[0-9a-z]{20}_[A-Za-z0-9_-]{43}$/) });
    expect(Date.parse(created.expires_at) - Date.now()).toBeGreaterThan(29 * 86400e3);
    expect((await t.api('GET', '/videos', { key: created.key })).status).toBe(200);

    const list = await t.api('GET', '/keys', { key: admin });
    expect(list.status).toBe(200);
    // The secret is the key's last 43 characters (it may itself hold "_").
    expect(created.key).toMatch(/^mi_[a-z0-9]{20}_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(list.body)).not.toContain(created.key.slice(-43));
    const mine = list.body.data.keys.find((k: { key_id: string }) => k.key_id === created.key_id);
    expect(mine).toMatchObject({ label: 'laptop script', scopes: ['read'], revoked_at: null, current: false });
    expect(list.body.data.keys.filter((k: { current: boolean }) => k.current)).toHaveLength(1);
  });

  it('revokes a key of the workspace; the revoked key answers 401', async () => {
    const created = (await t.api('POST', '/keys', { key: admin, json: { scopes: ['read', 'write'] } })).body.data;
    expect(created.expires_at).toBeNull();
    const r = await t.api('DELETE', `/keys/${created.key_id}`, { key: admin });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ key_id: created.key_id, revoked: true });
    expect((await t.api('GET', '/videos', { key: created.key })).status).toBe(401);
    const listed = (await t.api('GET', '/keys', { key: admin })).body.data.keys.find((k: { key_id: string }) => k.key_id === created.key_id);
    expect(listed.revoked_at).not.toBeNull();
  });

  it('needs write scope, refuses bad bodies, and never touches another workspace', async () => {
    const reader = t.key('home', ['read']);
    expect((await t.api('GET', '/keys', { key: reader })).status).toBe(403);
    expect((await t.api('POST', '/keys', { key: reader, json: { scopes: ['read'] } })).status).toBe(403);
    expect((await t.api('GET', '/keys')).status).toBe(401);
    expect((await t.api('POST', '/keys', { key: admin, json: { scopes: ['admin'] } })).status).toBe(422);
    expect((await t.api('POST', '/keys', { key: admin, json: { scopes: ['read'], expires_in: 'forever' } })).status).toBe(422);
    expect((await t.api('POST', '/keys', { key: admin, json: { scopes: ['read'], access: ['other'] } })).status).toBe(422);

    const stranger = t.key('elsewhere');
    const theirs = (await t.api('POST', '/keys', { key: stranger, json: { scopes: ['read'] } })).body.data;
    expect((await t.api('DELETE', `/keys/${theirs.key_id}`, { key: admin })).status).toBe(404);
    expect((await t.api('GET', '/videos', { key: theirs.key })).status).toBe(200);
    const ours = (await t.api('GET', '/keys', { key: admin })).body.data.keys.map((k: { key_id: string }) => k.key_id);
    expect(ours).not.toContain(theirs.key_id);
  });
});
