// Recording what the indexer processes answer: the outcomes heard together are saved in one
// transaction with no savepoint each (the full-text index writes out its pending entries at every
// savepoint), and a save that throws still fails its run alone, leaving none of its writes. Against
// a real SQLite store.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../server/store/index.ts';
import { StageQueue } from '../server/indexer/queue.ts';
import type { ExtractOutput, ExtractedPage } from '../server/media/types.ts';
import { insertAsset } from './helpers/asset-row.ts';
import { tempDir } from './helpers/server.ts';

const box = { x: 0.1, y: 0.1, w: 0.5, h: 0.05 };

function textOf(words: string): ExtractOutput {
  const page: ExtractedPage = {
    page: 1,
    width: 100,
    height: 100,
    text: words,
    passages: [{ idx: 0, text: words, bbox: box }],
    lines: [{ text: words, bbox: box }],
    render: null,
    pictureArea: 0,
    needsOcr: false,
    textSource: 'text',
  };
  return { facts: { page_count: 1 }, pages: [page], shots: [], frames: [], audio: null, thumbnail: null, details: {} };
}

const ok = (output: unknown) => ({ state: 'ok' as const, output, counts: { pages: 1 } });

describe('recording outcomes', () => {
  let store: Store | undefined;
  afterEach(() => store?.close());

  const ids = ['vid_rec0000000000000001', 'vid_rec0000000000000002', 'vid_rec0000000000000003'];
  const findable = (word: string) => store!.search.knownWords([word]).has(word);

  it('saves the outcomes heard together in one transaction, without a savepoint each', () => {
    store = openStore(tempDir());
    for (const id of ids) insertAsset(store, { id, workspace: 'w', kind: 'document' });
    const queue = new StageQueue(store);
    const transactions = vi.spyOn(store, 'transaction');
    const events = queue.finishMany(ids.map((assetId, i) => ({ assetId, stage: 'extract', outcome: ok(textOf(`marmalade${i}`)) })));
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(events.map((e) => [e.assetId, e.state])).toEqual(ids.map((id) => [id, 'ok']));
    for (const [i, id] of ids.entries()) {
      expect(findable(`marmalade${i}`)).toBe(true);
      expect(store.runs.get(id, 'extract')).toMatchObject({ state: 'ok' });
    }
  });

  it('fails only the run whose save throws, leaving none of its writes; the others are saved', () => {
    store = openStore(tempDir());
    for (const id of ids) insertAsset(store, { id, workspace: 'w', kind: 'document' });
    const queue = new StageQueue(store);
    // The second output's page has no lines: its save throws after storing its pages.
    const broken = textOf('quince1');
    (broken.pages[0] as { lines: unknown }).lines = null;
    const events = queue.finishMany([
      { assetId: ids[0], stage: 'extract', outcome: ok(textOf('quince0')) },
      { assetId: ids[1], stage: 'extract', outcome: ok(broken) },
      { assetId: ids[2], stage: 'extract', outcome: ok(textOf('quince2')) },
    ]);
    expect(events.map((e) => [e.assetId, e.state, e.code ?? null])).toEqual([
      [ids[0], 'ok', null],
      [ids[1], 'failed', 'save_failed'],
      [ids[2], 'ok', null],
    ]);
    expect(store.runs.get(ids[1], 'extract')).toMatchObject({ state: 'failed', code: 'save_failed', reason: expect.stringMatching(/^save_failed: /) });
    expect(store.media.page(ids[1], 1)).toBeUndefined();
    expect(findable('quince1')).toBe(false);
    expect(findable('quince0')).toBe(true);
    expect(findable('quince2')).toBe(true);
    expect(store.media.page(ids[2], 1)).toMatchObject({ text: 'quince2' });
  });
});
