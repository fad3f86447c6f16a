// What files say about themselves (migration 0019): the reading, its filterable values, and the
// face regions other tools named.
import { statementCache, type DB } from './db.ts';
import type { AssetMetadata } from '../contract/assets.ts';
import type { Box } from '../contract/common.ts';

export type StoredMetadata = Omit<AssetMetadata, 'width' | 'height' | 'duration_s'>;

export interface NamedRegionRow {
  idx: number;
  name: string;
  box: Box;
  source: string;
}

export class MetadataRepo {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(db: DB) {
    this.sql = statementCache(db);
  }

  /** Replaces an asset's metadata and named regions (call inside a transaction). */
  replace(assetId: string, m: StoredMetadata, takenMs: number | null, regions: Array<{ name: string; box: Box; source: string }>): void {
    this.sql(
      `INSERT INTO asset_metadata (asset_id, data, taken_at, taken_ms, taken_source, lat, lon, city, region, country, country_code, camera, rating)
       VALUES (@asset_id, @data, @taken_at, @taken_ms, @taken_source, @lat, @lon, @city, @region, @country, @country_code, @camera, @rating)
       ON CONFLICT (asset_id) DO UPDATE SET data = excluded.data, taken_at = excluded.taken_at, taken_ms = excluded.taken_ms,
         taken_source = excluded.taken_source, lat = excluded.lat, lon = excluded.lon, city = excluded.city, region = excluded.region,
         country = excluded.country, country_code = excluded.country_code, camera = excluded.camera, rating = excluded.rating`,
    ).run({
      asset_id: assetId,
      data: JSON.stringify(m),
      taken_at: m.taken_at,
      taken_ms: takenMs,
      taken_source: m.taken_at_source,
      lat: m.gps?.lat ?? null,
      lon: m.gps?.lon ?? null,
      city: m.place?.city ?? null,
      region: m.place?.region ?? null,
      country: m.place?.country ?? null,
      country_code: m.place?.country_code ?? null,
      camera: m.camera ? [m.camera.make, m.camera.model].filter(Boolean).join(' ') || null : null,
      rating: m.rating,
    });
    this.sql('DELETE FROM named_regions WHERE asset_id = ?').run(assetId);
    const insert = this.sql('INSERT INTO named_regions (asset_id, idx, name, x, y, w, h, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    regions.forEach((r, i) => insert.run(assetId, i, r.name, r.box.x, r.box.y, r.box.w, r.box.h, r.source));
  }

  get(assetId: string): StoredMetadata | null {
    const row = this.sql('SELECT data FROM asset_metadata WHERE asset_id = ?').get(assetId) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as StoredMetadata) : null;
  }

  /** The distinct place values of the live assets the workspaces own or see. */
  placeValues(workspaceIds: string[]): Array<{ city: string | null; region: string | null; country: string | null; country_code: string | null }> {
    return this.sql(
      `SELECT DISTINCT m.city, m.region, m.country, m.country_code FROM asset_metadata m JOIN assets a ON a.id = m.asset_id AND a.deleted_at IS NULL
       WHERE (m.city IS NOT NULL OR m.country_code IS NOT NULL)
         AND (a.workspace_id IN (SELECT value FROM json_each(?)) OR EXISTS (SELECT 1 FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id IN (SELECT value FROM json_each(?))))`,
    ).all(JSON.stringify(workspaceIds), JSON.stringify(workspaceIds)) as Array<{
      city: string | null;
      region: string | null;
      country: string | null;
      country_code: string | null;
    }>;
  }

  /** When each of these assets was taken (ISO as read, and ms for ordering). */
  takenOf(assetIds: string[]): Map<string, { taken_at: string | null; taken_ms: number | null }> {
    if (assetIds.length === 0) return new Map();
    const rows = this.sql('SELECT asset_id, taken_at, taken_ms FROM asset_metadata WHERE asset_id IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(assetIds),
    ) as Array<{
      asset_id: string;
      taken_at: string | null;
      taken_ms: number | null;
    }>;
    return new Map(rows.map((r) => [r.asset_id, { taken_at: r.taken_at, taken_ms: r.taken_ms }]));
  }

  namedRegions(assetId: string): NamedRegionRow[] {
    return (
      this.sql('SELECT idx, name, x, y, w, h, source FROM named_regions WHERE asset_id = ? ORDER BY idx').all(assetId) as Array<{
        idx: number;
        name: string;
        x: number;
        y: number;
        w: number;
        h: number;
        source: string;
      }>
    ).map((r) => ({ idx: r.idx, name: r.name, box: { x: r.x, y: r.y, w: r.w, h: r.h }, source: r.source }));
  }
}
