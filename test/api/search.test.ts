import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('POST /search (SPEC 4.5, 2.10) over indexed corpus files', () => {
  let t: TestServer;
  let key: string;
  const id: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('lib');
    for (const [name, file] of [
      ['carroll', 'docs/carroll-wonderland.pdf'],
      ['xetex', 'ocr/hindi-pdf/xetex-examples.pdf'],
      ['chelsea', 'scenes/skimage/chelsea.png'],
      ['docx', 'office/example.docx'],
      ['movie', 'video/forensics/movie-hello.mp4'],
    ]) {
      id[name] = (await t.upload(key, corpus(file))).body.data.video_id;
    }
    for (const v of Object.values(id)) await t.waitCompleted(key, v, 60_000);
  });
  afterAll(() => t.close());

  const search = (body: unknown, k = key) => t.api('POST', '/search', { key: k, json: body });

  it('finds the page and passage of a phrase from carroll-wonderland.pdf first, with highlights', async () => {
    const r = await search({ query: 'Would the fall never come to an end', rerank: true });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ engine: 'arrow', recipe: expect.stringContaining('bm25') });
    const top = r.body.data.hits[0];
    expect(top).toMatchObject({ video_id: id.carroll, asset_kind: 'document', page: 5, timestamp: 4, modality: 'passage', score: 1 });
    expect(top.passage.text).toMatch(/^Down, down, down\. Would the fall NEVER come to an end!/);
    const [s, e] = top.passage.highlights[0];
    expect(top.passage.text.slice(s, e).toLowerCase()).toMatch(/^(would|the|fall|never|come|to|an|end)$/);
    expect(top.passage.bbox.y).toBeGreaterThan(0);
    expect((await fetch(top.frame_url)).status).toBe(200);
    const scores = r.body.data.hits.map((h: { score: number }) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('ranks photos, videos and documents in one list and finds file names', async () => {
    const r = await search({ query: 'chelsea' });
    expect(r.body.data.hits[0]).toMatchObject({ video_id: id.chelsea, asset_kind: 'image', modality: 'name', page: null, timestamp: 0 });
    expect(r.body.data.hits[0].frame_url).toMatch(/frame\.jpg/);
    const m = await search({ query: 'movie hello' });
    expect(m.body.data.hits[0]).toMatchObject({ video_id: id.movie, asset_kind: 'video' });
    expect(m.body.data.hits[0].frame_url).toMatch(/k00001\.jpg/);
  });

  it('finds the Hindi PDF page from a Devanagari query', async () => {
    const r = await search({ query: 'गणेशाय' });
    expect(r.body.data.hits[0]).toMatchObject({ video_id: id.xetex, page: 1 });
  });

  it('restricts to one asset with video_id, and to kinds of evidence with search_options', async () => {
    const r = await search({ query: 'Alice', video_id: id.docx });
    expect(r.body.data.hits).toEqual([]);
    const c = await search({ query: 'Alice', video_id: id.carroll, limit: 5 });
    expect(c.body.data.hits).toHaveLength(5);
    expect(c.body.data.hits.every((h: { video_id: string }) => h.video_id === id.carroll)).toBe(true);
    const names = await search({ query: 'carroll wonderland', search_options: { modalities: ['name'] } });
    expect(names.body.data.hits.map((h: { modality: string }) => h.modality)).toEqual(['name']);
    expect((await search({ query: 'x', video_id: 'vid_nope' })).status).toBe(404);
  });

  it('validates the request: 422 for no query, bad limit, unknown fields', async () => {
    for (const body of [
      {},
      { query: '' },
      { query: '   ' },
      { query: 'a', limit: 0 },
      { query: 'a', limit: 101 },
      { query: 'a', bogus: 1 },
      { query: '!!!' },
      { query: 'a', engine: 'turbo' },
    ]) {
      const r = await search(body);
      expect(r.status, JSON.stringify(body)).toBe(422);
    }
    expect((await search({ query: 'alice' }, t.key('lib', ['read']))).status).toBe(200);
  });

  it('hides deleted assets from results at once', async () => {
    const extra = (await t.upload(key, { name: 'zebra-notes.txt', data: Buffer.from('The zebra crossed the road.') })).body.data.video_id;
    await t.waitCompleted(key, extra);
    expect((await search({ query: 'zebra' })).body.data.hits.map((h: { video_id: string }) => h.video_id)).toContain(extra);
    await t.api('DELETE', `/videos/${extra}`, { key });
    expect((await search({ query: 'zebra' })).body.data.hits).toEqual([]);
  });

  it("keeps workspaces apart, and searches several only within the key's access list (hits carry workspace_id)", async () => {
    const outsider = t.key('outside');
    expect((await search({ query: 'alice' }, outsider)).body.data.hits).toEqual([]);
    const own = t.server.store.workspaces.byName('lib')!.id;
    const outsideWs = t.server.store.workspaces.byName('outside')!.id;
    expect((await search({ query: 'alice', workspace_ids: [own] }, outsider)).status).toBe(403);
    const friend = t.key('outside', ['read'], { access: ['lib'] });
    const r = await search({ query: 'alice', workspace_ids: [outsideWs, own] }, friend);
    expect(r.status).toBe(200);
    expect(r.body.data.hits[0]).toMatchObject({ video_id: id.carroll, workspace_id: own });
    expect((await search({ query: 'alice', video_id: id.carroll }, outsider)).status).toBe(404);
  });

  it('lists the workspaces a key reaches (GET /workspaces), takes their names in workspace_ids, and says which it may search when refused', async () => {
    const own = t.server.store.workspaces.byName('lib')!.id;
    const outsideWs = t.server.store.workspaces.byName('outside')!.id;
    const assets = t.server.store.workspaces.list().find((w) => w.id === own)!.asset_count;
    expect(assets).toBeGreaterThan(0);

    const friend = t.key('outside', ['read', 'write'], { access: ['lib'] });
    const list = await t.api('GET', '/workspaces', { key: friend });
    expect(list.status).toBe(200);
    expect(list.body.data.workspaces).toEqual([
      { workspace_id: outsideWs, name: 'outside', own: true, may_write: true, read_only: false, asset_count: 0 },
      { workspace_id: own, name: 'lib', own: false, may_write: false, read_only: false, asset_count: assets },
    ]);
    const reader = t.key('outside', ['read']);
    expect((await t.api('GET', '/workspaces', { key: reader })).body.data.workspaces).toEqual([
      { workspace_id: outsideWs, name: 'outside', own: true, may_write: false, read_only: false, asset_count: 0 },
    ]);
    expect((await t.api('GET', '/workspaces')).status).toBe(401);

    // Names work as ids do; the key's own workspace by name too.
    const byName = await search({ query: 'alice', workspace_ids: ['outside', 'lib'] }, friend);
    expect(byName.status).toBe(200);
    expect(byName.body.data.hits[0]).toMatchObject({ video_id: id.carroll, workspace_id: own });
    expect((await search({ query: 'alice', workspace_ids: ['outside'] }, reader)).status).toBe(200);
    // Refused: the message names what the key may search, and nothing of the other workspace is returned.
    const refused = await search({ query: 'alice', workspace_ids: ['lib'] }, reader);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(`This key may not search workspace lib; it may search: outside (${outsideWs}).`);
    expect(refused.body.data).toBeUndefined();
  });

  it("reads from the workspace X-Workspace-Id names, within the key's reach; writes stay with its own", async () => {
    const lib = t.server.store.workspaces.byName('lib')!.id;
    const friend = t.key('outside', ['read', 'write'], { access: ['lib'] });
    const reader = t.key('outside', ['read']);
    const as = (key: string, ws: string) => ({ key, headers: { 'X-Workspace-Id': ws } });
    // Without the header: the key's own (empty) workspace. With it, by name or id: lib's assets.
    expect((await t.api('GET', '/videos', { key: friend })).body.pagination.total).toBe(0);
    const listed = await t.api('GET', '/videos', as(friend, 'lib'));
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((v: { video_id: string }) => v.video_id)).toContain(id.carroll);
    expect((await t.api('GET', '/videos', as(friend, lib))).body.pagination.total).toBe(listed.body.pagination.total);
    expect((await t.api('GET', `/videos/${id.carroll}`, as(friend, 'lib'))).status).toBe(200);
    expect((await t.api('POST', '/search', { ...as(friend, 'lib'), json: { query: 'alice' } })).body.data.hits[0]).toMatchObject({ video_id: id.carroll });
    // Outside the key's reach: 403, nothing returned; a workspace that does not exist is the same.
    for (const ws of ['lib', 'nowhere']) {
      const r = await t.api('GET', '/videos', as(reader, ws));
      expect(r.status).toBe(403);
      expect(r.body.data).toBeUndefined();
    }
    expect((await t.api('GET', `/videos/${id.carroll}`, as(reader, 'lib'))).status).toBe(403);
    // Writes: to the key's own workspace only.
    const write = await t.api('PUT', '/index-options', { ...as(friend, 'lib'), json: {} });
    expect(write.status).toBe(403);
    expect(write.body.error.message).toMatch(/Writes go to the key's own workspace/);
    expect((await t.api('PUT', '/index-options', { ...as(friend, 'outside'), json: {} })).status).toBe(200);
  });

  it('answers classic requests from arrow with engine_fallback when classic holds nothing', async () => {
    const r = await search({ query: 'alice', engine: 'classic' });
    expect(r.body.data.engine).toBe('arrow');
    expect(r.body.data.engine_fallback).toMatch(/classic/);
    expect(r.body.data.hits.length).toBeGreaterThan(0);
  });
});
