// Search by meaning: the embeddings stage, the vector index under the data folder and the fusion with
// lexical search, through the real server. all-MiniLM-L6-v2's weights cannot be had here, so a tiny
// generated encoder stands in (with the real tokenizer): each token is a fixed random vector (little
// ones for the commonest words, as a trained model weighs them), and the table makes "pokemon" mean
// what "rabbit" means — a word that neither the lexical index nor WordNet relates to it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { installTinyMiniLM, seededTable, writeManifest, useManifest } from './helpers/tiny-onnx.ts';
import { openDatabase } from '../server/store/db.ts';
import { VectorsRepo } from '../server/store/vectors.repo.ts';
import { BUILD_IN_PLACE_MAX, VectorIndex } from '../server/store/vector-index.ts';

const META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova/all-MiniLM-L6-v2');
const VOCAB = 30522;
const HIDDEN = 128;
const COMMON = ['the', 'a', '.', 'at', 'in', 'on', 'down', 'under', 'of', 'and', 'for'];
const MODEL = 'all-MiniLM-L6-v2';

function tinyTable(): Float32Array {
  const table = seededTable(VOCAB, HIDDEN, 3);
  const ids = new Map(
    fs
      .readFileSync(path.join(META, 'vocab.txt'), 'utf8')
      .split('\n')
      .map((w, i) => [w, i]),
  );
  const row = (w: string) => (ids.get(w) as number) * HIDDEN;
  // [PAD], [CLS] and [SEP] carry nothing, so texts are alike only through their words.
  for (const w of ['[PAD]', '[CLS]', '[SEP]']) table.fill(0, row(w), row(w) + HIDDEN);
  for (const w of COMMON) for (let j = row(w); j < row(w) + HIDDEN; j++) table[j] *= 0.1;
  table.copyWithin(row('pokemon'), row('rabbit'), row('rabbit') + HIDDEN);
  return table;
}

const BURROW = 'The rabbit ran down the hole.\n\nThe queen shouted at the gardeners in the garden.\n\nA caterpillar smoked on a mushroom.\n';
const WARREN = 'A rabbit family lived under the old oak.\n\nNobody saw them at noon.\n';

describe('dense search (tiny encoder, real tokenizer, vector index on disk)', () => {
  const data = tempDir('mi-dense-');
  const scratch = tempDir('mi-dense-manifest-');
  let restoreManifest = () => {};
  let t: TestServer;
  let key: string;
  let burrow: string;

  let early: string;

  beforeAll(async () => {
    // One asset indexed before the model is installed...
    t = await startTestServer({}, data);
    key = t.key('dense');
    early = (await t.index(key, { name: 'early.txt', data: Buffer.from('My rabbit sleeps all day.\n') })).video_id;
    // ...then the model arrives and the service starts again.
    await t.server.close();
    const files = installTinyMiniLM(path.join(data, 'models'), META, tinyTable(), VOCAB, HIDDEN);
    writeManifest(path.join(scratch, 'manifest.json'), MODEL, 'embeddings', 'feature-extraction', files);
    restoreManifest = useManifest(path.join(scratch, 'manifest.json'));
    await t.restart();
    const d = await t.index(key, { name: 'burrow.txt', data: Buffer.from(BURROW) });
    burrow = d.video_id;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    restoreManifest();
  });

  const search = async (query: string, extra: Record<string, unknown> = {}, k = key) => {
    const r = await t.api('POST', '/search', { key: k, json: { query, ...extra } });
    expect(r.status).toBe(200);
    return r.body.data;
  };

  it('gives vectors to assets indexed before the model was installed, on the next start', async () => {
    const d = await t.waitCompleted(key, early);
    expect(d.index.report.stages.embeddings).toMatchObject({ state: 'ok', counts: { vectors: 1 } });
    const hits = (await search('pokemon')).hits.map((h: { video_id: string }) => h.video_id);
    expect(hits).toContain(early);
  });

  it('embeds every passage and reports the model and provider', async () => {
    const d = (await t.api('GET', `/videos/${burrow}`, { key })).body.data;
    expect(d.index.report.stages.embeddings).toMatchObject({ state: 'ok', counts: { vectors: 3, passage: 3 } });
    expect(d.index.report.stages.embeddings.details).toMatchObject({ model: MODEL, provider: 'cpu', dim: HIDDEN });
    expect(t.server.store.vectors.count(MODEL)).toBe(3 + 1); // and the early asset's one
  });

  it('finds by meaning what no word of the query matches, and fuses both lists when words match too', async () => {
    const r = await search('pokemon');
    expect(r.recipe).toBe(`lexical-bm25+wordnet+people+dense(${MODEL})+rrf`);
    expect(r.hits[0]).toMatchObject({ video_id: burrow, asset_kind: 'document', page: 1, modality: 'passage', score: 1 });
    expect(r.hits[0].passage.text).toBe('The rabbit ran down the hole.');
    expect(r.hits[0].evidence).toEqual([{ retriever: 'dense', modality: 'passage', score: expect.any(Number) }]);
    expect(r.hits[0].evidence[0].score).toBeGreaterThan(0.5);

    const both = await search('rabbit hole');
    expect(both.hits[0].passage.text).toBe('The rabbit ran down the hole.');
    expect(both.hits[0].evidence.map((e: { retriever: string }) => e.retriever).sort()).toEqual(['dense', 'lexical']);
  });

  it('keeps dense hits inside video_id and the caller workspace', async () => {
    const other = await t.index(key, { name: 'elsewhere.txt', data: Buffer.from('Rabbit stew for dinner.\n') });
    const within = await search('pokemon', { video_id: other.video_id });
    expect(within.hits.length).toBeGreaterThan(0);
    expect(within.hits.every((h: { video_id: string }) => h.video_id === other.video_id)).toBe(true);
    const stranger = t.key('stranger');
    expect((await search('pokemon', {}, stranger)).hits).toEqual([]);
    await t.api('DELETE', `/videos/${other.video_id}`, { key });
  });

  it('keeps the graph under the data folder across restarts, grows it per asset and rebuilds it from the rows when lost', async () => {
    await t.restart();
    const file = path.join(data, 'vectors', `${MODEL}.usearch`);
    expect(fs.existsSync(file)).toBe(true);
    expect((await search('pokemon')).hits[0].video_id).toBe(burrow);

    const before = t.server.store.vectors.count(MODEL);
    const warren = (await t.index(key, { name: 'warren.txt', data: Buffer.from(WARREN) })).video_id;
    expect(t.server.store.vectors.count(MODEL)).toBe(before + 2);
    const ids = (await search('pokemon')).hits.map((h: { video_id: string }) => h.video_id);
    expect(ids).toContain(warren);
    expect(ids).toContain(burrow);

    await t.server.close();
    fs.rmSync(path.join(data, 'vectors'), { recursive: true });
    await t.restart();
    const again = (await search('pokemon')).hits.map((h: { video_id: string }) => h.video_id);
    expect(new Set(again)).toEqual(new Set(ids));

    // A file that is not the one its metadata vouches for (cut short): rebuilt from the rows, not read.
    await t.server.close();
    fs.truncateSync(file, 100);
    await t.restart();
    expect(new Set((await search('pokemon')).hits.map((h: { video_id: string }) => h.video_id))).toEqual(new Set(ids));
  });

  it('drops a deleted asset from dense results at once', async () => {
    expect((await t.api('DELETE', `/videos/${burrow}`, { key })).status).toBe(200);
    const r = await search('pokemon');
    expect(r.hits.some((h: { video_id: string }) => h.video_id === burrow)).toBe(false);
    expect(r.hits.length).toBeGreaterThan(0);
  });
});

describe('vector index files', () => {
  it('adds the rows written after its last save and forgets rows that are gone when reopened (a crash between the two)', () => {
    const dir = tempDir('mi-vec-');
    const db = openDatabase(path.join(dir, 'db.sqlite'));
    db.prepare(`INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'w', 0)`).run();
    const asset = (id: string) =>
      db
        .prepare(
          `INSERT INTO assets (id, workspace_id, kind, file_name, ext, stored_path, size_bytes, sha256, pipeline, engine, status, created_at)
         VALUES (?, 'w', 'document', 'a.txt', 'txt', 'x', 1, 'h', 'arrow', 'arrow', 'completed', 0)`,
        )
        .run(id);
    asset('a');
    asset('b');
    const repo = new VectorsRepo(db);
    const unit = (i: number) => {
      const v = new Float32Array(8);
      v[i] = 1;
      return v;
    };
    const row = (i: number) => ({ modality: 'passage' as const, timestamp: 0, page: 1, ref: i, region_id: null, text: `t${i}`, vector: unit(i) });
    const first = new VectorIndex(path.join(dir, 'vectors'), repo);
    const a = repo.replaceForAsset('a', MODEL, [row(0), row(1)]);
    first.update(MODEL, a.removed, a.added);
    first.save();
    // Written to the rows, never to the graph file: the process died first.
    const b = repo.replaceForAsset('b', MODEL, [row(2)]);
    db.prepare(`DELETE FROM vectors WHERE asset_id = 'a' AND ref = 1`).run();

    const reopened = new VectorIndex(path.join(dir, 'vectors'), repo);
    // int8 vectors: the similarity is close to the true one (callers score again from the rows).
    expect(reopened.nearest(MODEL, unit(2), 1)[0]).toMatchObject({ id: b.added[0].id, similarity: expect.closeTo(1, 2) });
    const near = reopened.nearest(MODEL, unit(1), 3).map((n) => n.id);
    expect(near).not.toContain(a.added[1].id);
    expect(near).toHaveLength(2);
    // The reconciled index waits to be saved (a timer): saved now, so that nothing is written into
    // the folder after the test has removed it.
    reopened.save();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('builds a large index in a worker thread, answers no candidates meanwhile, and takes out what was removed during the build', async () => {
    const dir = tempDir('mi-vec-big-');
    const dbFile = path.join(dir, 'db.sqlite');
    const db = openDatabase(dbFile);
    db.prepare(`INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'w', 0)`).run();
    db.prepare(
      `INSERT INTO assets (id, workspace_id, kind, file_name, ext, stored_path, size_bytes, sha256, pipeline, engine, status, created_at)
       VALUES ('a', 'w', 'document', 'a.txt', 'txt', 'x', 1, 'h', 'arrow', 'arrow', 'completed', 0)`,
    ).run();
    const repo = new VectorsRepo(db);
    let seed = 7;
    const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5;
    const unit = () => {
      const v = Float32Array.from({ length: 16 }, rand);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const n = BUILD_IN_PLACE_MAX + 200;
    const rows = Array.from({ length: n }, (_, i) => ({
      modality: 'passage' as const,
      timestamp: 0,
      page: 1,
      ref: i,
      region_id: null,
      text: `t${i}`,
      vector: unit(),
    }));
    const { added } = db.transaction(() => repo.replaceForAsset('a', MODEL, rows))();

    const index = new VectorIndex(path.join(dir, 'vectors'), repo, dbFile);
    const [gone, kept] = [added[10], added[20]];
    expect(index.nearest(MODEL, kept.vector, 1)).toEqual([]); // being built
    db.prepare('DELETE FROM vectors WHERE id = ?').run(gone.id);
    index.update(MODEL, [gone.id], []);
    await index.built();

    expect(fs.existsSync(path.join(dir, 'vectors', `${MODEL}.usearch`))).toBe(true);
    // An approximate index: HNSW's graph leaves a few vectors in thousands that no search reaches,
    // and two threads build it in an order that differs from run to run (measured: 2–5 of these
    // 5,200 each build, and 1 build in 100 missed a given one, as this test did once with one
    // probe). So many probes are asked, and almost all must find themselves first; a build that
    // lost or misnumbered vectors finds none.
    const probes = added.filter((_, i) => i % 100 === 20);
    const found = (ix: VectorIndex) =>
      probes.filter((p) => {
        const [first] = ix.nearest(MODEL, p.vector, 1);
        return first?.id === p.id && first.similarity > 0.95;
      }).length;
    expect(found(index)).toBeGreaterThanOrEqual(probes.length - 2);
    expect(probes).toContainEqual(kept);
    expect(index.nearest(MODEL, gone.vector, 5).map((x) => x.id)).not.toContain(gone.id);
    index.save();
    // Reopened: the saved index matches the rows, so it is mapped, not built again.
    const again = new VectorIndex(path.join(dir, 'vectors'), repo, dbFile);
    expect(found(again)).toBeGreaterThanOrEqual(probes.length - 2);
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
