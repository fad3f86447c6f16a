// People, face assignments and the owner's exclusions. Faces of deleted assets never count.
import { statementCache, type DB } from './db.ts';
import type { Box } from '../contract/common.ts';
import type { AssetKind } from '../contract/assets.ts';
import { floats } from './codec.ts';

export interface PersonRow {
  id: string;
  workspace_id: string;
  name: string;
  hidden: 0 | 1;
  cover_face_id: string | null;
  merged_into: string | null;
  created_at: number;
  updated_at: number;
  face_count: number;
}

export interface PersonFace {
  face_id: string;
  video_id: string;
  kind: 'video' | 'image' | 'document';
  timestamp: number;
  x: number;
  y: number;
  w: number;
  h: number;
  quality: number;
  good: 0 | 1;
  assigned_by: AssignedBy;
}

/** One asset a person appears in. */
export interface Appearance {
  video_id: string;
  kind: AssetKind;
  file_name: string;
  face_count: number;
  first_timestamp: number;
}

/** A face no person holds yet, as grouping sees it. */
export interface WaitingFace {
  id: string;
  /** Unit 1024-d embedding. */
  embedding: Float32Array;
  good: boolean;
  /** asset + timestamp: two faces of one frame are never one person. */
  frame: string;
  /** People this face must not be put into (rejected, or split from). */
  excluded: readonly string[];
}

/** A person as grouping sees them: the centroid of their good faces and the frames they are in. */
export interface PersonCentroid {
  id: string;
  /** Sum of the unit embeddings of its good faces (the centroid, unnormalized). */
  sum: Float32Array;
  count: number;
  frames: ReadonlySet<string>;
}

/** Who put a face into a person: a re-cluster forming it, a match on indexing, or the owner. */
export type AssignedBy = 'cluster' | 'match' | 'owner';
export type ExclusionKind = 'rejected' | 'split';

/** What was decided about one face of an asset. */
export interface FaceDecisions {
  timestamp: number;
  box: Box;
  person_id: string | null;
  assigned_by: AssignedBy | null;
  /** People whose pinned cover it is. */
  covers: string[];
  exclusions: Array<{ person_id: string; kind: ExclusionKind }>;
  /** The owner said to leave it out of grouping. */
  ignored: boolean;
  /** The owner said it is no face. */
  not_a_face: boolean;
}

/** A face no person holds, as the owner reviews it ("Not grouped yet"). */
export interface LooseFace extends Omit<PersonFace, 'assigned_by'> {
  size_px: number;
  sharpness: number;
  ignored: 0 | 1;
  not_a_face: 0 | 1;
}

// Live faces: their asset is not deleted.
const LIVE = `JOIN faces f ON f.id = fp.face_id JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL`;

export class PeopleRepo {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(db: DB) {
    this.sql = statementCache(db);
  }

  private withCount = `SELECT p.*, (SELECT COUNT(*) FROM face_people fp ${LIVE} WHERE fp.person_id = p.id) AS face_count FROM people p`;

  get(id: string): PersonRow | undefined {
    return this.sql(`${this.withCount} WHERE p.id = ?`).get(id) as PersonRow | undefined;
  }

  /**
   * The workspace's people, largest first, each with its cover in the same pass: the pinned cover
   * while it is a live face of theirs, else their best face (good, then quality), null with no face.
   */
  list(workspaceId: string, includeHidden: boolean): Array<PersonRow & { cover: string | null }> {
    return this.sql(
      `WITH live AS (
         SELECT fp.person_id, f.id AS face_id, f.good, f.quality
         FROM people p JOIN face_people fp ON fp.person_id = p.id JOIN faces f ON f.id = fp.face_id
         JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL
         WHERE p.workspace_id = ? AND p.merged_into IS NULL
       ), ranked AS (
         SELECT person_id, face_id, COUNT(*) OVER (PARTITION BY person_id) AS n,
                ROW_NUMBER() OVER (PARTITION BY person_id ORDER BY good DESC, quality DESC, face_id) AS rn
         FROM live
       )
       SELECT p.*, COALESCE(r.n, 0) AS face_count,
              CASE WHEN p.cover_face_id IS NOT NULL AND EXISTS (
                     SELECT 1 FROM face_people c JOIN faces cf ON cf.id = c.face_id JOIN assets ca ON ca.id = cf.asset_id AND ca.deleted_at IS NULL
                     WHERE c.face_id = p.cover_face_id AND c.person_id = p.id)
                   THEN p.cover_face_id ELSE r.face_id END AS cover
       FROM people p LEFT JOIN ranked r ON r.person_id = p.id AND r.rn = 1
       WHERE p.workspace_id = ? AND p.merged_into IS NULL ${includeHidden ? '' : 'AND p.hidden = 0'}
       ORDER BY face_count DESC, p.created_at, p.id`,
    ).all(workspaceId, workspaceId) as Array<PersonRow & { cover: string | null }>;
  }

  /** The workspace's live person of this name (case-insensitive), if any. */
  namedInWorkspace(workspaceId: string, name: string): PersonRow | undefined {
    return this.sql(`${this.withCount} WHERE p.workspace_id = ? AND p.merged_into IS NULL AND lower(p.name) = lower(?) ORDER BY p.created_at LIMIT 1`).get(
      workspaceId,
      name,
    ) as PersonRow | undefined;
  }

  isExcluded(faceId: string, personId: string): boolean {
    return this.sql('SELECT 1 FROM face_exclusions WHERE face_id = ? AND person_id = ?').get(faceId, personId) !== undefined;
  }

  insert(row: Omit<PersonRow, 'face_count'>): void {
    this.sql(
      `INSERT INTO people (id, workspace_id, name, hidden, cover_face_id, merged_into, created_at, updated_at)
         VALUES (@id, @workspace_id, @name, @hidden, @cover_face_id, @merged_into, @created_at, @updated_at)`,
    ).run(row);
  }

  update(id: string, fields: Partial<Pick<PersonRow, 'name' | 'hidden' | 'cover_face_id' | 'merged_into'>>, at: number): void {
    const keys = Object.keys(fields);
    if (keys.length === 0) return;
    this.sql(`UPDATE people SET ${keys.map((k) => `${k} = @${k}`).join(', ')}, updated_at = @at WHERE id = @id`).run({ ...fields, id, at });
  }

  assign(faceId: string, personId: string, by: AssignedBy, at: number): void {
    this.sql(
      'INSERT INTO face_people (face_id, person_id, assigned_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(face_id) DO UPDATE SET person_id = excluded.person_id, assigned_by = excluded.assigned_by',
    ).run(faceId, personId, by, at);
  }

  unassign(faceId: string): void {
    this.sql('DELETE FROM face_people WHERE face_id = ?').run(faceId);
  }

  exclude(faceId: string, personId: string, kind: ExclusionKind, at: number): void {
    this.sql(
      `INSERT INTO face_exclusions (face_id, person_id, kind, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(face_id, person_id) DO UPDATE SET kind = CASE WHEN kind = 'rejected' THEN 'rejected' ELSE excluded.kind END`,
    ).run(faceId, personId, kind, at);
  }

  /**
   * The owner says to leave the face out of every grouping and suggestion (until `unignore`); with
   * `notAFace`, that it is no face at all (an ignore again without it leaves it so).
   */
  ignore(faceId: string, at: number, notAFace = false): void {
    this.sql(
      `INSERT INTO face_ignores (face_id, created_at, not_a_face) VALUES (?, ?, ?)
         ON CONFLICT(face_id) DO UPDATE SET not_a_face = MAX(not_a_face, excluded.not_a_face)`,
    ).run(faceId, at, notAFace ? 1 : 0);
  }

  /** The faces of an asset the owner said are no faces. */
  notFacesOf(assetId: string): Set<string> {
    const rows = this.sql('SELECT i.face_id FROM face_ignores i JOIN faces f ON f.id = i.face_id WHERE f.asset_id = ? AND i.not_a_face = 1').all(assetId);
    return new Set((rows as Array<{ face_id: string }>).map((r) => r.face_id));
  }

  isNotAFace(faceId: string): boolean {
    return this.sql('SELECT 1 FROM face_ignores WHERE face_id = ? AND not_a_face = 1').get(faceId) !== undefined;
  }

  unignore(faceId: string): void {
    this.sql('DELETE FROM face_ignores WHERE face_id = ?').run(faceId);
  }

  isIgnored(faceId: string): boolean {
    return this.sql('SELECT 1 FROM face_ignores WHERE face_id = ?').get(faceId) !== undefined;
  }

  /**
   * A page of the workspace's faces that no person holds (waiting, or with `ignored` the ones the
   * owner left out), best first: the quality the faces stage gave (size, sharpness, pose), then size.
   */
  looseFaces(workspaceId: string, ignored: boolean, limit: number, offset: number): { rows: LooseFace[]; total: number } {
    const live = 'FROM faces f JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL';
    const where = `WHERE a.workspace_id = ? AND NOT EXISTS (SELECT 1 FROM face_people fp WHERE fp.face_id = f.id)
      AND ${ignored ? '' : 'NOT '}EXISTS (SELECT 1 FROM face_ignores i WHERE i.face_id = f.id)`;
    const rows = this.sql(
      `SELECT f.id AS face_id, a.id AS video_id, a.kind, f.timestamp, r.x, r.y, r.w, r.h, f.quality, f.good, f.size_px, f.sharpness, ${ignored ? 1 : 0} AS ignored,
         COALESCE((SELECT i.not_a_face FROM face_ignores i WHERE i.face_id = f.id), 0) AS not_a_face
         ${live} JOIN regions r ON r.id = f.id ${where} ORDER BY f.quality DESC, f.size_px DESC, f.id LIMIT ? OFFSET ?`,
    ).all(workspaceId, limit, offset) as LooseFace[];
    const { n } = this.sql(`SELECT COUNT(*) AS n ${live} ${where}`).get(workspaceId) as { n: number };
    return { rows, total: n };
  }

  /** The owner changed their mind: the face may be this person again. */
  unexclude(faceId: string, personId: string): void {
    this.sql('DELETE FROM face_exclusions WHERE face_id = ? AND person_id = ?').run(faceId, personId);
  }

  /** Moves every face and exclusion of one person to another (merge). */
  moveAll(from: string, to: string): void {
    this.sql("UPDATE face_people SET person_id = ?, assigned_by = 'owner' WHERE person_id = ?").run(to, from);
    this.sql(
      'INSERT OR IGNORE INTO face_exclusions (face_id, person_id, kind, created_at) SELECT face_id, ?, kind, created_at FROM face_exclusions WHERE person_id = ?',
    ).run(to, from);
  }

  /** What the owner and the grouping decided about an asset's faces, to carry over a re-index. */
  decisionsOf(assetId: string): FaceDecisions[] {
    const faces = this.sql(
      `SELECT f.id, f.timestamp, r.x, r.y, r.w, r.h, fp.person_id, fp.assigned_by FROM faces f JOIN regions r ON r.id = f.id
         LEFT JOIN face_people fp ON fp.face_id = f.id WHERE f.asset_id = ?`,
    ).all(assetId) as Array<{
      id: string;
      timestamp: number;
      x: number;
      y: number;
      w: number;
      h: number;
      person_id: string | null;
      assigned_by: AssignedBy | null;
    }>;
    return faces.map((f) => ({
      timestamp: f.timestamp,
      box: { x: f.x, y: f.y, w: f.w, h: f.h },
      person_id: f.person_id,
      assigned_by: f.assigned_by,
      covers: (this.sql('SELECT id FROM people WHERE cover_face_id = ?').all(f.id) as Array<{ id: string }>).map((r) => r.id),
      exclusions: this.sql('SELECT person_id, kind FROM face_exclusions WHERE face_id = ?').all(f.id) as FaceDecisions['exclusions'],
      ignored: this.isIgnored(f.id),
      not_a_face: this.isNotAFace(f.id),
    }));
  }

  holdsLiveFace(personId: string, faceId: string): boolean {
    return this.sql(`SELECT 1 FROM face_people fp ${LIVE} WHERE fp.person_id = ? AND fp.face_id = ?`).get(personId, faceId) !== undefined;
  }

  /** The face's frame (asset @ timestamp) and workspace; undefined for no live face. */
  faceFrame(faceId: string): { frame: string; asset_id: string; workspace_id: string } | undefined {
    return this.sql(
      `SELECT f.asset_id || '@' || f.timestamp AS frame, f.asset_id, a.workspace_id FROM faces f JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL WHERE f.id = ?`,
    ).get(faceId) as { frame: string; asset_id: string; workspace_id: string } | undefined;
  }

  /** Whether the person holds a face of this frame (asset @ timestamp) other than `except`. */
  holdsFrame(personId: string, frame: string, except: string): boolean {
    return Boolean(
      this.sql(
        `SELECT 1 FROM face_people fp JOIN faces f ON f.id = fp.face_id WHERE fp.person_id = ? AND f.asset_id || '@' || f.timestamp = ? AND f.id != ?`,
      ).get(personId, frame, except),
    );
  }

  personOfFace(faceId: string): string | null {
    return (this.sql('SELECT person_id FROM face_people WHERE face_id = ?').get(faceId) as { person_id: string } | undefined)?.person_id ?? null;
  }

  /** A page of a person's faces: best first, or with `weakest` the likeliest mistakes first. */
  faces(personId: string, limit: number, offset: number, weakest = false): { rows: PersonFace[]; total: number } {
    const rows = this.sql(
      `SELECT f.id AS face_id, a.id AS video_id, a.kind, f.timestamp, r.x, r.y, r.w, r.h, f.quality, f.good, fp.assigned_by
         FROM face_people fp ${LIVE} JOIN regions r ON r.id = f.id
         WHERE fp.person_id = ? ORDER BY ${weakest ? 'f.good, f.quality, f.id' : 'f.good DESC, f.quality DESC, f.id'} LIMIT ? OFFSET ?`,
    ).all(personId, limit, offset) as PersonFace[];
    const { n } = this.sql(`SELECT COUNT(*) AS n FROM face_people fp ${LIVE} WHERE fp.person_id = ?`).get(personId) as { n: number };
    return { rows, total: n };
  }

  appearances(personId: string): Appearance[] {
    return this.sql(
      `SELECT a.id AS video_id, a.kind, a.file_name, COUNT(*) AS face_count, MIN(f.timestamp) AS first_timestamp
         FROM face_people fp ${LIVE} WHERE fp.person_id = ? GROUP BY a.id ORDER BY a.created_at, a.id`,
    ).all(personId) as Appearance[];
  }

  /** The best face of a person, for a cover. */
  bestFace(personId: string): string | null {
    return (
      (
        this.sql(`SELECT f.id FROM face_people fp ${LIVE} WHERE fp.person_id = ? ORDER BY f.good DESC, f.quality DESC, f.id LIMIT 1`).get(personId) as
          { id: string } | undefined
      )?.id ?? null
    );
  }

  workspaceOfAsset(assetId: string): string | null {
    return (this.sql('SELECT workspace_id FROM assets WHERE id = ?').get(assetId) as { workspace_id: string } | undefined)?.workspace_id ?? null;
  }

  /** Faces of live assets owned by the workspace that no person holds and the owner did not ignore: the waiting pool. */
  waitingFaces(workspaceId: string, onlyAsset?: string): WaitingFace[] {
    const rows = this.sql(
      `SELECT f.id, f.embedding, f.good, f.asset_id || '@' || f.timestamp AS frame,
                (SELECT group_concat(person_id) FROM face_exclusions e WHERE e.face_id = f.id) AS excluded
         FROM faces f JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL
         WHERE a.workspace_id = ? AND (? IS NULL OR a.id = ?) AND NOT EXISTS (SELECT 1 FROM face_people fp WHERE fp.face_id = f.id)
           AND NOT EXISTS (SELECT 1 FROM face_ignores i WHERE i.face_id = f.id)`,
    ).all(workspaceId, onlyAsset ?? null, onlyAsset ?? null) as Array<{ id: string; embedding: Buffer; good: number; frame: string; excluded: string | null }>;
    return rows.map((r) => ({
      id: r.id,
      embedding: floats(r.embedding),
      good: r.good === 1,
      frame: r.frame,
      excluded: r.excluded ? r.excluded.split(',') : [],
    }));
  }

  /** Whether any face of the asset waits for grouping (live, no person, not ignored). */
  hasWaiting(assetId: string): boolean {
    return (
      this.sql(
        `SELECT 1 FROM faces f WHERE f.asset_id = ? AND NOT EXISTS (SELECT 1 FROM face_people fp WHERE fp.face_id = f.id)
           AND NOT EXISTS (SELECT 1 FROM face_ignores i WHERE i.face_id = f.id) LIMIT 1`,
      ).get(assetId) !== undefined
    );
  }

  /** A face of the workspace that waits for grouping (live, no person, not ignored): what grouping must respect; else undefined. */
  waitingState(faceId: string, workspaceId: string): { good: boolean; excluded: string[] } | undefined {
    const r = this.sql(
      `SELECT f.good, (SELECT group_concat(person_id) FROM face_exclusions e WHERE e.face_id = f.id) AS excluded
         FROM faces f JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL
         WHERE f.id = ? AND a.workspace_id = ? AND NOT EXISTS (SELECT 1 FROM face_people fp WHERE fp.face_id = f.id)
           AND NOT EXISTS (SELECT 1 FROM face_ignores i WHERE i.face_id = f.id)`,
    ).get(faceId, workspaceId) as { good: number; excluded: string | null } | undefined;
    return r ? { good: r.good === 1, excluded: r.excluded ? r.excluded.split(',') : [] } : undefined;
  }

  /** Centroid sums of each live person's good faces (unit embeddings), with the frames they hold. */
  clusterPeople(workspaceId: string): PersonCentroid[] {
    const rows = this.sql(
      `SELECT fp.person_id, f.embedding, f.good, f.asset_id || '@' || f.timestamp AS frame
         FROM face_people fp ${LIVE} JOIN people p ON p.id = fp.person_id
         WHERE p.workspace_id = ? AND p.merged_into IS NULL ORDER BY fp.person_id, f.id`,
    ).all(workspaceId) as Array<{ person_id: string; embedding: Buffer; good: number; frame: string }>;
    const out = new Map<string, PersonCentroid & { frames: Set<string> }>();
    for (const r of rows) {
      const emb = floats(r.embedding);
      let p = out.get(r.person_id);
      if (!p) out.set(r.person_id, (p = { id: r.person_id, sum: new Float32Array(emb.length), count: 0, frames: new Set() }));
      p.frames.add(r.frame);
      if (r.good !== 1) continue;
      let n = 0;
      for (const x of emb) n += x * x;
      n = Math.sqrt(n) || 1;
      for (let i = 0; i < emb.length; i++) p.sum[i] += emb[i] / n;
      p.count++;
    }
    return [...out.values()];
  }

  /** People left with no live face: removed unless named. */
  emptyUnnamed(workspaceId: string): string[] {
    return (
      this.sql(
        `SELECT p.id FROM people p WHERE p.workspace_id = ? AND p.merged_into IS NULL AND p.name = ''
             AND NOT EXISTS (SELECT 1 FROM face_people fp ${LIVE} WHERE fp.person_id = p.id)`,
      ).all(workspaceId) as Array<{ id: string }>
    ).map((r) => r.id);
  }

  remove(id: string): void {
    this.sql('UPDATE people SET merged_into = NULL WHERE merged_into = ?').run(id);
    this.sql('DELETE FROM face_people WHERE person_id = ?').run(id);
    this.sql('DELETE FROM people WHERE id = ?').run(id);
  }

  /** Named people's faces on an asset, with their boxes (for XMP export). */
  namedFacesOf(assetId: string): Array<{ name: string; x: number; y: number; w: number; h: number }> {
    return this.sql(
      `SELECT p.name, r.x, r.y, r.w, r.h FROM face_people fp JOIN faces f ON f.id = fp.face_id JOIN regions r ON r.id = f.id
         JOIN people p ON p.id = fp.person_id WHERE f.asset_id = ? AND p.name != '' AND p.hidden = 0 ORDER BY r.x, r.y`,
    ).all(assetId) as Array<{ name: string; x: number; y: number; w: number; h: number }>;
  }

  /** person_id of each face, for region reads. */
  personIdsOf(faceIds: string[]): Map<string, string> {
    if (faceIds.length === 0) return new Map();
    const rows = this.sql(`SELECT face_id, person_id FROM face_people WHERE face_id IN (${faceIds.map(() => '?').join(',')})`).all(...faceIds) as Array<{
      face_id: string;
      person_id: string;
    }>;
    return new Map(rows.map((r) => [r.face_id, r.person_id]));
  }
}
