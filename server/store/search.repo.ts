// The lexical index: entries written by stages, matched with FTS5 and ranked with BM25.
import { inTransaction, insertRows, statementCache, type DB } from './db.ts';
import type { Modality } from '../contract/search.ts';
import { words as wordsOf } from '../search/tokenizer.ts';
import { filterCondition, type ResolvedFilters } from './filters.sql.ts';

export interface NewEntry {
  modality: Modality;
  timestamp: number;
  page: number | null;
  ref: number | null;
  region_id: string | null;
  text: string;
}

export interface EntryHit extends NewEntry {
  id: number;
  asset_id: string;
  workspace_id: string;
  kind: 'video' | 'image' | 'document';
  file_name: string;
  /** BM25 (lower is better, as FTS5 gives it). */
  rank: number;
}

export class SearchRepo {
  /** Search runs the same few statements on every query: each is prepared once. */
  private readonly sql: ReturnType<typeof statementCache>;
  /** The full-text ranking alone, in raw mode (rows as arrays): kept apart from the plain ones. */
  private ranked: ReturnType<DB['prepare']> | null = null;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** Replaces the entries a stage wrote for an asset (call inside a transaction). */
  replaceForStage(assetId: string, stage: string, entries: NewEntry[]): void {
    this.sql('DELETE FROM search_entries WHERE asset_id = ? AND stage = ?').run(assetId, stage);
    const kept = entries.filter((e) => e.text.trim());
    if (kept.length === 0) return;
    // Several entries to a statement, then the full-text index given all of them in one (a book's
    // hundreds of passages were two statements each).
    insertRows(
      this.sql,
      'search_entries',
      ['asset_id', 'stage', 'modality', 'timestamp', 'page', 'ref', 'region_id', 'text'],
      kept.map((e) => [assetId, stage, e.modality, e.timestamp, e.page, e.ref, e.region_id, e.text]),
    );
    this.sql('INSERT INTO search_fts(rowid, text) SELECT id, text FROM search_entries WHERE asset_id = ? AND stage = ? ORDER BY id').run(assetId, stage);
  }

  /** Replaces an asset's file-name entry (a file indexed in place was renamed), in one transaction. */
  replaceName(assetId: string, text: string): void {
    inTransaction(this.db, () => {
      this.sql("DELETE FROM search_entries WHERE asset_id = ? AND modality = 'name'").run(assetId);
      this.insert({ asset_id: assetId, stage: 'extract', modality: 'name', timestamp: 0, page: null, ref: null, region_id: null, text });
    });
  }

  /**
   * Stores an entry and indexes its text, in the caller's transaction. The full-text index is
   * written here, not by a trigger (migration 0030 says why); its deletions still come by trigger.
   */
  private insert(e: NewEntry & { asset_id: string; stage: string }): void {
    const { lastInsertRowid } = this.sql(
      `INSERT INTO search_entries (asset_id, stage, modality, timestamp, page, ref, region_id, text)
       VALUES (@asset_id, @stage, @modality, @timestamp, @page, @ref, @region_id, @text)`,
    ).run(e);
    this.sql('INSERT INTO search_fts(rowid, text) VALUES (?, ?)').run(lastInsertRowid, e.text);
  }

  /** Which of these words the index holds. */
  knownWords(words: string[]): Set<string> {
    return new Set(this.wordCounts(words).keys());
  }

  /** Of these words, those the index holds, with how many entries hold each. */
  wordCounts(words: string[]): Map<string, number> {
    if (words.length === 0) return new Map();
    const rows = this.sql(`SELECT term, doc FROM search_vocab WHERE term IN (${words.map(() => '?').join(',')})`).all(...words) as Array<{
      term: string;
      doc: number;
    }>;
    return new Map(rows.map((r) => [r.term, r.doc]));
  }

  /** About how many entries the index holds (the highest id: cheap, and close enough to weigh words). */
  approximateSize(): number {
    return (this.sql('SELECT max(id) AS n FROM search_entries').get() as { n: number | null }).n ?? 0;
  }

  /** Of `words`, those in the name of a named person of the workspaces. */
  personNameWords(words: string[], workspaceIds: string[]): Set<string> {
    const out = new Set<string>();
    if (words.length === 0) return out;
    for (const { name } of this.namedPeople(workspaceIds)) for (const w of wordsOf(name)) if (words.includes(w)) out.add(w);
    return out;
  }

  /** The named people of the workspaces (not those merged into another). */
  private namedPeople(workspaceIds: string[]): Array<{ id: string; name: string }> {
    return this.db
      .prepare(`SELECT id, name FROM people WHERE merged_into IS NULL AND name != '' AND workspace_id IN (${workspaceIds.map(() => '?').join(',')})`)
      .all(...workspaceIds) as Array<{ id: string; name: string }>;
  }

  /** Faces of named people whose name holds every query word, in assets visible to the workspaces. */
  facesOfPeopleNamed(
    words: string[],
    workspaceIds: string[],
    assetId: string | undefined,
    engine: string,
    filters: ResolvedFilters = {},
  ): Array<EntryHit & { name: string }> {
    if (words.length === 0) return [];
    const where = filterCondition(filters);
    const people = this.namedPeople(workspaceIds).filter((p) => {
      const tokens = wordsOf(p.name);
      return words.every((w) => tokens.includes(w));
    });
    const out: Array<EntryHit & { name: string }> = [];
    const q = this.db.prepare(
      `SELECT f.id AS region_id, f.timestamp, a.id AS asset_id, a.kind, a.file_name, a.workspace_id, f.quality
       FROM face_people fp JOIN faces f ON f.id = fp.face_id JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL AND a.engine = @engine
       WHERE fp.person_id = @person AND (@asset IS NULL OR a.id = @asset) AND (${where.sql}) ORDER BY f.quality DESC`,
    );
    for (const p of people) {
      for (const r of q.all({ engine, person: p.id, asset: assetId ?? null, ...where.params }) as Array<{
        region_id: string;
        timestamp: number;
        asset_id: string;
        kind: EntryHit['kind'];
        file_name: string;
        workspace_id: string;
      }>) {
        out.push({
          id: 0,
          asset_id: r.asset_id,
          workspace_id: r.workspace_id,
          kind: r.kind,
          file_name: r.file_name,
          rank: 0,
          name: p.name,
          modality: 'person',
          timestamp: r.timestamp,
          page: r.kind === 'document' ? Math.floor(r.timestamp) + 1 : null,
          ref: null,
          region_id: r.region_id,
          text: p.name,
        });
      }
    }
    return out;
  }

  /**
   * Assets the workspaces see that hold under a condition (filters with no words to search for),
   * newest taken first, as entries of their first moment.
   */
  browse(opts: { workspaceIds: string[]; assetId?: string; engine: string; limit: number; filters?: ResolvedFilters }): EntryHit[] {
    const where = filterCondition(opts.filters ?? {});
    const ws = opts.workspaceIds.map((_, i) => `@ws${i}`).join(', ');
    const params: Record<string, unknown> = { engine: opts.engine, limit: opts.limit, asset: opts.assetId ?? null, ...where.params };
    opts.workspaceIds.forEach((w, i) => (params[`ws${i}`] = w));
    return this.db
      .prepare(
        `SELECT 0 AS id, a.id AS asset_id, 'name' AS modality, 0 AS timestamp, CASE WHEN a.kind = 'document' THEN 1 END AS page, NULL AS ref,
                NULL AS region_id, a.file_name AS text, a.kind, a.file_name, 0 AS rank,
                CASE WHEN a.workspace_id IN (${ws}) THEN a.workspace_id
                     ELSE (SELECT s.workspace_id FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id IN (${ws}) LIMIT 1) END AS workspace_id
         FROM assets a LEFT JOIN asset_metadata m ON m.asset_id = a.id
         WHERE a.deleted_at IS NULL AND a.engine = @engine AND (@asset IS NULL OR a.id = @asset) AND (${where.sql})
           AND (a.workspace_id IN (${ws}) OR EXISTS (SELECT 1 FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id IN (${ws})))
         ORDER BY m.taken_ms DESC NULLS LAST, a.created_at DESC LIMIT @limit`,
      )
      .all(params) as EntryHit[];
  }

  /** An asset's entries of these modalities, in the order they sit (page, time). */
  entriesOf(assetId: string, modalities: readonly string[]): NewEntry[] {
    return this.db
      .prepare(
        `SELECT modality, timestamp, page, ref, region_id, text FROM search_entries
         WHERE asset_id = ? AND modality IN (${modalities.map(() => '?').join(',')}) ORDER BY page, timestamp, id`,
      )
      .all(assetId, ...modalities) as NewEntry[];
  }

  deleteForPage(assetId: string, stage: string, page: number): void {
    this.db.prepare('DELETE FROM search_entries WHERE asset_id = ? AND stage = ? AND page = ?').run(assetId, stage, page);
  }

  /** Removes the entries of a stage that point at one region (a face the owner said is no face). */
  deleteForRegion(assetId: string, stage: string, regionId: string): void {
    this.sql('DELETE FROM search_entries WHERE asset_id = ? AND stage = ? AND region_id = ?').run(assetId, stage, regionId);
  }

  /** Adds an entry of a stage beside those it has, in the caller's transaction. */
  add(assetId: string, stage: string, entry: NewEntry): void {
    this.insert({ ...entry, asset_id: assetId, stage });
  }

  /**
   * Entries matching an FTS5 expression in assets visible to any of the workspaces (owned or
   * shared, not deleted), optionally one asset and one engine, best first (BM25).
   * Across the library the best matches are ranked by the full-text index alone (no join per
   * match, the cost that grows with the library), then the few kept are joined and filtered; when
   * the filter leaves too few, a deeper cut is taken.
   */
  match(expr: string, opts: { workspaceIds: string[]; assetId?: string; engine: string; limit: number; filters?: ResolvedFilters }): EntryHit[] {
    const ws = opts.workspaceIds.map((_, i) => `@ws${i}`).join(', ');
    const where = filterCondition(opts.filters ?? {});
    const params: Record<string, unknown> = { expr, engine: opts.engine, limit: opts.limit, asset: opts.assetId ?? null, ...where.params };
    opts.workspaceIds.forEach((w, i) => (params[`ws${i}`] = w));
    const columns = `e.id, e.asset_id, e.modality, e.timestamp, e.page, e.ref, e.region_id, e.text, a.kind, a.file_name,
      CASE WHEN a.workspace_id IN (${ws}) THEN a.workspace_id
           ELSE (SELECT s.workspace_id FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id IN (${ws}) LIMIT 1) END AS workspace_id`;
    const visible = `a.deleted_at IS NULL AND a.engine = @engine
      AND (@asset IS NULL OR a.id = @asset) AND (${where.sql})
      AND (a.workspace_id IN (${ws}) OR EXISTS (SELECT 1 FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id IN (${ws})))`;
    if (opts.assetId) {
      return this.sql(
        `SELECT ${columns}, bm25(search_fts) AS rank FROM search_fts JOIN search_entries e ON e.id = search_fts.rowid JOIN assets a ON a.id = e.asset_id
         WHERE search_fts MATCH @expr AND ${visible} ORDER BY rank LIMIT @limit`,
      ).all(params) as EntryHit[];
    }
    const ranked = (this.ranked ??= this.db
      .prepare('SELECT rowid, bm25(search_fts) AS rank FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT ?')
      .raw());
    const join = this.sql(
      `SELECT ${columns}, top.value ->> 1 AS rank FROM json_each(@top) AS top
       JOIN search_entries e ON e.id = top.value ->> 0 JOIN assets a ON a.id = e.asset_id
       WHERE ${visible} ORDER BY rank LIMIT @limit`,
    );
    for (let depth = Math.max(100, opts.limit * 2); ; depth *= 8) {
      const top = ranked.all(expr, depth) as Array<[number, number]>;
      const rows = join.all({ ...params, top: JSON.stringify(top) }) as EntryHit[];
      if (rows.length >= opts.limit || top.length < depth) return rows;
    }
  }
}
