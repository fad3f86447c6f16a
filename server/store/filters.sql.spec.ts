import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from './db.ts';
import { AssetsRepo } from './assets.repo.ts';
import { WorkspacesRepo } from './workspaces.repo.ts';
import type { Store } from './index.ts';
import type { ResolvedFilters } from './filters.sql.ts';
import { insertAsset } from '../../test/helpers/asset-row.ts';

// The filter condition on real SQLite (in memory, every migration applied), through the library list.
let db: DB;
let assets: AssetsRepo;
let ws: string;
const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`);

beforeAll(() => {
  db = openDatabase(':memory:');
  assets = new AssetsRepo(db);
  const store = { workspaces: new WorkspacesRepo(db), assets } as unknown as Store; // the two repositories insertAsset uses
  const meta = db.prepare('INSERT INTO asset_metadata (asset_id, data, taken_ms, city, country, country_code, camera, rating) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const rows: Array<[string, 'image' | 'video' | 'document', number | null, string | null, string | null, string | null, number | null]> = [
    ['paris', 'image', day('2019-12-24'), 'Paris', 'FR', 'Canon EOS 5D', 5],
    ['lyon', 'image', day('2020-06-01'), 'Lyon', 'FR', 'Apple iPhone 12', 2],
    ['kochi', 'video', day('2021-01-15'), 'Kochi', 'IN', null, null],
    ['notes', 'document', null, null, null, null, null],
  ];
  for (const [id, kind, taken, city, cc, camera, rating] of rows) {
    ws = insertAsset(store, { id, workspace: 'w', kind });
    meta.run(id, '{}', taken, city, city ? (cc === 'FR' ? 'France' : 'India') : null, cc, camera, rating);
  }
  // A face of Ana on lyon (its region row left out: the condition reads faces and face_people only).
  db.pragma('foreign_keys = OFF');
  db.prepare("INSERT INTO people (id, workspace_id, name, created_at, updated_at) VALUES ('per_a', ?, 'Ana', 0, 0)").run(ws);
  db.prepare(
    "INSERT INTO faces (id, asset_id, timestamp, embedding, quality, good, size_px, sharpness, pose, landmarks, emotions) VALUES ('f1', 'lyon', 0, x'', 1, 1, 100, 1, '{}', '[]', '{}')",
  ).run();
  db.prepare("INSERT INTO face_people (face_id, person_id, assigned_by, created_at) VALUES ('f1', 'per_a', 'cluster', 0)").run();
  db.pragma('foreign_keys = ON');
});
afterAll(() => db.close());

const listed = (filters: ResolvedFilters) =>
  assets
    .listVisible(ws, 50, 0, { filters })
    .rows.map((r) => r.id)
    .sort();

describe('filterCondition: the resolved filters as SQL', () => {
  it('no filter lists everything the workspace sees', () => {
    expect(listed({})).toEqual(['kochi', 'lyon', 'notes', 'paris']);
  });

  it('when: taken_after inclusive, taken_before exclusive; undated assets never match a date', () => {
    expect(listed({ takenAfterMs: day('2019-12-24') })).toEqual(['kochi', 'lyon', 'paris']);
    expect(listed({ takenAfterMs: day('2019-12-25'), takenBeforeMs: day('2021-01-15') })).toEqual(['lyon']);
  });

  it('where: any of the place values given, by field; no value at all matches nothing', () => {
    expect(listed({ places: { city: ['Paris', 'Kochi'], region: [], country: [], country_code: [] } })).toEqual(['kochi', 'paris']);
    expect(listed({ places: { city: [], region: [], country: [], country_code: ['FR'] } })).toEqual(['lyon', 'paris']);
    expect(listed({ places: { city: [], region: [], country: [], country_code: [] } })).toEqual([]);
  });

  it('camera as a part of make and model, rating at least, kinds, people, and all of them together', () => {
    expect(listed({ camera: 'iPhone' })).toEqual(['lyon']);
    expect(listed({ ratingMin: 3 })).toEqual(['paris']);
    expect(listed({ kinds: ['video', 'document'] })).toEqual(['kochi', 'notes']);
    expect(listed({ people: ['per_a'] })).toEqual(['lyon']);
    expect(listed({ kinds: ['image'], camera: 'Canon', ratingMin: 5, takenBeforeMs: day('2020-01-01') })).toEqual(['paris']);
    expect(listed({ kinds: ['image'], people: ['per_a'], camera: 'Canon' })).toEqual([]);
  });

  it('months counts under the same condition', () => {
    expect(assets.months(ws, { places: { city: [], region: [], country: [], country_code: ['FR'] } })).toEqual({
      months: [
        { month: '2020-06', count: 1 },
        { month: '2019-12', count: 1 },
      ],
      undated: 0,
    });
  });
});
