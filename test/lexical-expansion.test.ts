// WordNet's related words in lexical search, on a real store: the entries of the related words
// searched stay within a budget set by how many entries a list may bring, the rarest kept.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../server/store/index.ts';
import { lexical } from '../server/search/lexical.ts';
import { insertAsset } from './helpers/asset-row.ts';
import { tempDir } from './helpers/server.ts';

describe('related words in lexical search', () => {
  const dir = tempDir();
  let store: Store;
  let workspaceId: string;

  beforeAll(() => {
    store = openStore(dir);
    const id = 'doc_aaaaaaaaaaaaaaaaaaaa';
    workspaceId = insertAsset(store, {
      id,
      workspace: 'w',
      kind: 'document',
      row: { status: 'completed', completed_at: 1, page_count: 1 },
      runs: (r) => ({ ...r, state: 'ok' }),
    });
    // 15,000 other passages, so that 250 of "car" stay under the share of the library a related
    // word may hold (2 %): only the budget can leave it out.
    const entry = (text: string, i: number) => ({ modality: 'passage' as const, timestamp: i, page: 1, ref: null, region_id: null, text });
    const texts = [
      ...Array.from({ length: 15_000 }, (_, i) => `passage number ${i} about the weather`),
      ...Array.from({ length: 250 }, (_, i) => `a car parked in street ${i}`),
      ...Array.from({ length: 3 }, (_, i) => `an old jeep by the river ${i}`),
    ];
    store.transaction(() => store.search.replaceForStage(id, 'extract', texts.map(entry)));
  });
  afterAll(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('searches the rare related word and passes over one whose entries overrun the budget', () => {
    // 20 entries a list: a budget of 200 entries for the related words.
    const small = lexical(store, ['automobile'], { workspaceIds: [workspaceId], limit: 20 }, 'arrow');
    expect([...small.related.keys()]).toContain('jeep');
    expect([...small.related.keys()]).not.toContain('car');
    expect(small.candidates.filter((c) => c.entry.text.includes('jeep'))).toHaveLength(3);
    expect(small.candidates.some((c) => c.entry.text.includes(' car '))).toBe(false);
  });

  it('searches both when the lists may bring more', () => {
    // 30 entries a list: 300 entries, room for the 250 of "car" and the 3 of "jeep".
    const large = lexical(store, ['automobile'], { workspaceIds: [workspaceId], limit: 30 }, 'arrow');
    expect([...large.related.keys()]).toEqual(expect.arrayContaining(['car', 'jeep']));
    expect(large.candidates.some((c) => c.entry.text.includes(' car '))).toBe(true);
  });
});
