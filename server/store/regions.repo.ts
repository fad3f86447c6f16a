// Boxes on frames and pages: objects, faces and text lines.
import { insertRows, statementCache, type DB } from './db.ts';
import { newId } from './ids.ts';

/** A region's columns, in the order `replaceForStage` gives their values. */
const REGION_COLUMNS = ['id', 'asset_id', 'timestamp', 'kind', 'x', 'y', 'w', 'h', 'label', 'text', 'confidence', 'quality', 'person_id', 'source', 'stage'];

export interface RegionRow {
  id: string;
  asset_id: string;
  timestamp: number;
  kind: 'object' | 'face' | 'text';
  x: number;
  y: number;
  w: number;
  h: number;
  label: string | null;
  text: string | null;
  confidence: number | null;
  quality: number | null;
  person_id: string | null;
  source: string;
  stage: string;
}

export type NewRegion = Omit<RegionRow, 'id' | 'asset_id' | 'stage'>;

// Lines of text come in the order they were read (reading order: the boxes of a tilted page's lines
// overlap in height, so their position does not give it); faces and objects top to bottom.
const ORDER = "kind, CASE kind WHEN 'text' THEN rowid END, y, x";
/** What is shown of a picture: not the faces the owner said are no faces (migration 0031). */
const SHOWN = "NOT (kind = 'face' AND id IN (SELECT face_id FROM face_ignores WHERE not_a_face = 1))";

export class RegionsRepo {
  /** A document's lines and a photo's faces are written at every run: each statement is prepared once. */
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** Replaces the regions a stage wrote for an asset (call inside a transaction). */
  replaceForStage(assetId: string, stage: string, regions: NewRegion[]): string[] {
    this.sql('DELETE FROM regions WHERE asset_id = ? AND stage = ?').run(assetId, stage);
    const ids = regions.map((r) => newId(r.kind === 'face' ? 'face' : 'reg'));
    insertRows(
      this.sql,
      'regions',
      REGION_COLUMNS,
      regions.map((r, i) => [ids[i], assetId, r.timestamp, r.kind, r.x, r.y, r.w, r.h, r.label, r.text, r.confidence, r.quality, r.person_id, r.source, stage]),
    );
    return ids;
  }

  /** Removes what one stage held at one time (a later stage superseding it on that page). */
  deleteAt(assetId: string, stage: string, timestamp: number): void {
    this.sql('DELETE FROM regions WHERE asset_id = ? AND stage = ? AND timestamp = ?').run(assetId, stage, timestamp);
  }

  byId(id: string): RegionRow | undefined {
    return this.sql('SELECT * FROM regions WHERE id = ?').get(id) as RegionRow | undefined;
  }

  all(assetId: string): RegionRow[] {
    return this.sql(`SELECT * FROM regions WHERE asset_id = ? AND ${SHOWN} ORDER BY timestamp, ${ORDER}`).all(assetId) as RegionRow[];
  }

  at(assetId: string, timestamp: number): RegionRow[] {
    return this.sql(`SELECT * FROM regions WHERE asset_id = ? AND timestamp = ? AND ${SHOWN} ORDER BY ${ORDER}`).all(assetId, timestamp) as RegionRow[];
  }

  /** Regions within `window` seconds of t, keeping for each kind only the nearest sampled time. */
  near(assetId: string, t: number, window: number): RegionRow[] {
    const rows = this.db
      .prepare(`SELECT * FROM regions WHERE asset_id = ? AND timestamp BETWEEN ? AND ? AND ${SHOWN} ORDER BY ${ORDER}`)
      .all(assetId, t - window, t + window) as RegionRow[];
    const nearest = new Map<string, number>();
    for (const r of rows) {
      const best = nearest.get(r.kind);
      if (best === undefined || Math.abs(r.timestamp - t) < Math.abs(best - t)) nearest.set(r.kind, r.timestamp);
    }
    return rows.filter((r) => r.timestamp === nearest.get(r.kind));
  }
}
