// Pages, passages, shots, frames and the thumbnail/audio record of an asset.
import path from 'node:path';
import { insertRows, statementCache, type DB } from './db.ts';
import type { FileRef } from '../contract/common.ts';
import { PICTURE_PAGE_AREA, type ExtractOutput, type VideoShots } from '../media/types.ts';

/** A passage's columns, in the order its values are given. */
const PASSAGE_COLUMNS = ['asset_id', 'page', 'idx', 'text', 'x', 'y', 'w', 'h', 'source'];

export interface PageRow {
  asset_id: string;
  page: number;
  width: number;
  height: number;
  text: string;
  text_source: 'text_layer' | 'text' | 'ocr' | 'none';
  needs_ocr: 0 | 1;
  render_path: string | null;
}

export interface PassageRow {
  idx: number;
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  source: string;
}

export interface FrameRow {
  kind: 'keyframe' | 'frame';
  timestamp: number;
  path: string;
  width: number;
  height: number;
  shot: number | null;
}

export interface MediaRow {
  asset_id: string;
  thumbnail_path: string | null;
  audio_path: string | null;
  audio_duration_s: number | null;
  audio_sample_rate: number | null;
}

/** A stored file (its path relative to the data folder) as the frames route names it. */
export function fileRef(assetId: string, storedRel: string | null | undefined): FileRef | null {
  return storedRel ? { asset_id: assetId, name: path.basename(storedRel) } : null;
}

export class MediaRepo {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** Replaces everything extraction wrote for the asset (call inside a transaction). */
  replaceExtraction(assetId: string, assetDirRel: string, out: ExtractOutput): void {
    const rel = (p: string | null) => (p === null ? null : `${assetDirRel}/${p}`);
    this.sql('DELETE FROM pages WHERE asset_id = ?').run(assetId);
    this.sql('DELETE FROM shots WHERE asset_id = ?').run(assetId);
    this.sql('DELETE FROM frames WHERE asset_id = ?').run(assetId);
    this.sql('DELETE FROM asset_media WHERE asset_id = ?').run(assetId);
    insertRows(
      this.sql,
      'pages',
      ['asset_id', 'page', 'width', 'height', 'text', 'text_source', 'needs_ocr', 'render_path', 'picture_area'],
      out.pages.map((p) => [assetId, p.page, p.width, p.height, p.text, p.textSource, p.needsOcr ? 1 : 0, rel(p.render), p.pictureArea]),
    );
    insertRows(
      this.sql,
      'passages',
      PASSAGE_COLUMNS,
      out.pages.flatMap((p) => p.passages.map((ps) => [assetId, p.page, ps.idx, ps.text, ps.bbox.x, ps.bbox.y, ps.bbox.w, ps.bbox.h, p.textSource])),
    );
    const shot = this.sql('INSERT INTO shots (asset_id, idx, start_s, end_s, keyframe_s) VALUES (?, ?, ?, ?, ?)');
    for (const s of out.shots) shot.run(assetId, s.idx, s.start_s, s.end_s, s.keyframe_s);
    const frame = this.sql('INSERT OR REPLACE INTO frames (asset_id, kind, timestamp, path, width, height, shot) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const f of out.frames) frame.run(assetId, f.kind, f.timestamp, rel(f.file), f.width, f.height, f.shot);
    this.sql('INSERT INTO asset_media (asset_id, thumbnail_path, audio_path, audio_duration_s, audio_sample_rate) VALUES (?, ?, ?, ?, ?)').run(
      assetId,
      rel(out.thumbnail),
      rel(out.audio?.file ?? null),
      out.audio?.duration_s ?? null,
      out.audio?.sample_rate ?? null,
    );
  }

  /**
   * Replaces a video's shots, keyframes and audio record (the `shots` stage; call inside a
   * transaction). What extraction wrote (the poster frame, the thumbnail) stays.
   */
  replaceShots(assetId: string, assetDirRel: string, out: VideoShots): void {
    const rel = (p: string) => `${assetDirRel}/${p}`;
    this.sql('DELETE FROM shots WHERE asset_id = ?').run(assetId);
    this.sql("DELETE FROM frames WHERE asset_id = ? AND kind = 'keyframe'").run(assetId);
    const shot = this.sql('INSERT INTO shots (asset_id, idx, start_s, end_s, keyframe_s) VALUES (?, ?, ?, ?, ?)');
    for (const s of out.shots) shot.run(assetId, s.idx, s.start_s, s.end_s, s.keyframe_s);
    const frame = this.sql('INSERT OR REPLACE INTO frames (asset_id, kind, timestamp, path, width, height, shot) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const f of out.frames) frame.run(assetId, f.kind, f.timestamp, rel(f.file), f.width, f.height, f.shot);
    this.sql('UPDATE asset_media SET audio_path = ?, audio_duration_s = ?, audio_sample_rate = ? WHERE asset_id = ?').run(
      out.audio ? rel(out.audio.file) : null,
      out.audio?.duration_s ?? null,
      out.audio?.sample_rate ?? null,
      assetId,
    );
  }

  /** Replaces a page's text and passages (OCR reading a scanned page). */
  replacePageText(assetId: string, page: number, text: string, source: PageRow['text_source'], passages: PassageRow[]): void {
    this.sql('UPDATE pages SET text = ?, text_source = ?, needs_ocr = 0 WHERE asset_id = ? AND page = ?').run(text, source, assetId, page);
    this.sql('DELETE FROM passages WHERE asset_id = ? AND page = ?').run(assetId, page);
    insertRows(
      this.sql,
      'passages',
      PASSAGE_COLUMNS,
      passages.map((p) => [assetId, page, p.idx, p.text, p.x, p.y, p.w, p.h, p.source]),
    );
  }

  /**
   * Pages that are mostly picture (SPEC 2.7): rendered pages whose drawn images cover at least
   * PICTURE_PAGE_AREA of the page (scans are one full-page image). Blank pages are not.
   */
  picturePages(assetId: string): Array<{ page: number; render_path: string }> {
    return this.db
      .prepare(
        `SELECT p.page, p.render_path FROM pages p
         WHERE p.asset_id = ? AND p.render_path IS NOT NULL
           AND p.picture_area >= ?
         ORDER BY p.page`,
      )
      .all(assetId, PICTURE_PAGE_AREA) as Array<{ page: number; render_path: string }>;
  }

  /** Whether any page of the document holds text of its own (a PDF's text layer, a text document's text), not text read by OCR. */
  hasOwnText(assetId: string): boolean {
    return this.sql("SELECT 1 FROM pages WHERE asset_id = ? AND text_source IN ('text_layer', 'text') LIMIT 1").get(assetId) !== undefined;
  }

  pagesNeedingOcr(assetId: string): number[] {
    return (this.sql('SELECT page FROM pages WHERE asset_id = ? AND needs_ocr = 1 ORDER BY page').all(assetId) as Array<{ page: number }>).map((r) => r.page);
  }

  page(assetId: string, page: number): PageRow | undefined {
    return this.sql('SELECT * FROM pages WHERE asset_id = ? AND page = ?').get(assetId, page) as PageRow | undefined;
  }

  /** The pictures of some of a document's pages (one query). */
  pageRenders(assetId: string, pages: number[]): Map<number, FileRef | null> {
    const rows = this.sql('SELECT page, render_path FROM pages WHERE asset_id = ? AND page IN (SELECT value FROM json_each(?))').all(
      assetId,
      JSON.stringify(pages),
    ) as Array<{ page: number; render_path: string | null }>;
    return new Map(rows.map((r) => [r.page, fileRef(assetId, r.render_path)]));
  }

  passages(assetId: string, page: number): PassageRow[] {
    return this.db
      .prepare('SELECT idx, text, x, y, w, h, source FROM passages WHERE asset_id = ? AND page = ? ORDER BY idx')
      .all(assetId, page) as PassageRow[];
  }

  frames(assetId: string): FrameRow[] {
    return this.sql('SELECT kind, timestamp, path, width, height, shot FROM frames WHERE asset_id = ? ORDER BY timestamp').all(assetId) as FrameRow[];
  }

  /** The frame shown for a moment: the keyframe of the shot holding it, else the nearest frame. */
  /** The picture of a moment: a document page's render, else the frame shown at that time. */
  pictureAt(asset: { id: string; kind: string }, timestamp: number): FileRef | null {
    if (asset.kind === 'document') return fileRef(asset.id, this.page(asset.id, Math.floor(timestamp) + 1)?.render_path);
    return fileRef(asset.id, this.frameAt(asset.id, timestamp)?.path);
  }

  thumbnailOf(assetId: string): FileRef | null {
    return fileRef(assetId, this.media(assetId)?.thumbnail_path);
  }

  frameAt(assetId: string, timestamp: number): FrameRow | undefined {
    const inShot = this.db
      .prepare(
        `SELECT f.kind, f.timestamp, f.path, f.width, f.height, f.shot FROM shots s
         JOIN frames f ON f.asset_id = s.asset_id AND f.shot = s.idx AND f.kind = 'keyframe'
         WHERE s.asset_id = ? AND s.start_s <= ? AND ? < s.end_s LIMIT 1`,
      )
      .get(assetId, timestamp, timestamp) as FrameRow | undefined;
    return (
      inShot ??
      (this.db
        .prepare('SELECT kind, timestamp, path, width, height, shot FROM frames WHERE asset_id = ? ORDER BY ABS(timestamp - ?) LIMIT 1')
        .get(assetId, timestamp) as FrameRow | undefined)
    );
  }

  shots(assetId: string): Array<{ idx: number; start_s: number; end_s: number; keyframe_s: number }> {
    return this.sql('SELECT idx, start_s, end_s, keyframe_s FROM shots WHERE asset_id = ? ORDER BY idx').all(assetId) as Array<{
      idx: number;
      start_s: number;
      end_s: number;
      keyframe_s: number;
    }>;
  }

  replaceSpeech(assetId: string, segments: Array<{ start_s: number; end_s: number }>): void {
    this.sql('DELETE FROM speech_segments WHERE asset_id = ?').run(assetId);
    const insert = this.sql('INSERT INTO speech_segments (asset_id, idx, start_s, end_s) VALUES (?, ?, ?, ?)');
    segments.forEach((s, i) => insert.run(assetId, i, s.start_s, s.end_s));
  }

  replaceTranscript(assetId: string, segments: Array<{ start_s: number; end_s: number; text: string }>): void {
    this.sql('DELETE FROM transcript_segments WHERE asset_id = ?').run(assetId);
    const insert = this.sql('INSERT INTO transcript_segments (asset_id, idx, start_s, end_s, text) VALUES (?, ?, ?, ?, ?)');
    segments.forEach((s, i) => insert.run(assetId, i, s.start_s, s.end_s, s.text));
  }

  /** The transcript's segments, each with its speaker's label: the owner's name for the voice, else "Speaker N". */
  transcript(assetId: string): Array<{ start_s: number; end_s: number; text: string; speaker: string | null }> {
    const names = this.speakerNames(assetId);
    return (
      this.sql('SELECT start_s, end_s, text, speaker FROM transcript_segments WHERE asset_id = ? ORDER BY idx').all(assetId) as Array<{
        start_s: number;
        end_s: number;
        text: string;
        speaker: string | null;
      }>
    ).map((row) => {
      const n = row.speaker ? /^Speaker (\d+)$/.exec(row.speaker)?.[1] : undefined;
      return n && names.has(Number(n)) ? { ...row, speaker: names.get(Number(n)) ?? row.speaker } : row;
    });
  }

  /** Replaces who spoke when, and names the speaker of each transcript segment (by index; null: none). */
  replaceSpeakers(assetId: string, turns: Array<{ speaker: number; start_s: number; end_s: number }>, segmentSpeakers: Array<number | null>): void {
    this.sql('DELETE FROM speaker_turns WHERE asset_id = ?').run(assetId);
    const insert = this.sql('INSERT INTO speaker_turns (asset_id, idx, speaker, start_s, end_s) VALUES (?, ?, ?, ?, ?)');
    turns.forEach((t, i) => insert.run(assetId, i, t.speaker, t.start_s, t.end_s));
    this.sql('UPDATE transcript_segments SET speaker = NULL WHERE asset_id = ?').run(assetId);
    const name = this.sql('UPDATE transcript_segments SET speaker = ? WHERE asset_id = ? AND idx = ?');
    segmentSpeakers.forEach((s, i) => s !== null && name.run(speakerName(s), assetId, i));
  }

  /** Who spoke when, by speaker number. */
  speakerTurnNumbers(assetId: string): Array<{ speaker: number; start_s: number; end_s: number }> {
    return this.sql('SELECT speaker, start_s, end_s FROM speaker_turns WHERE asset_id = ? ORDER BY idx').all(assetId) as Array<{
      speaker: number;
      start_s: number;
      end_s: number;
    }>;
  }

  /** Who spoke when, each turn with its speaker's label (the owner's name, else "Speaker N"). */
  speakerTurns(assetId: string): Array<{ speaker: string; number: number; start_s: number; end_s: number }> {
    const names = this.speakerNames(assetId);
    return this.speakerTurnNumbers(assetId).map((t) => ({ ...t, speaker: names.get(t.speaker) ?? speakerName(t.speaker), number: t.speaker }));
  }

  /** The owner's names for a video's speakers, by number. */
  speakerNames(assetId: string): Map<number, string> {
    const rows = this.sql('SELECT speaker, name FROM speaker_names WHERE asset_id = ?').all(assetId) as Array<{ speaker: number; name: string }>;
    return new Map(rows.map((r) => [r.speaker, r.name]));
  }

  /** Names a speaker of a video (null: the name taken away). */
  nameSpeaker(assetId: string, speaker: number, name: string | null): void {
    if (name === null) this.sql('DELETE FROM speaker_names WHERE asset_id = ? AND speaker = ?').run(assetId, speaker);
    else
      this.db
        .prepare('INSERT INTO speaker_names (asset_id, speaker, name) VALUES (?, ?, ?) ON CONFLICT (asset_id, speaker) DO UPDATE SET name = excluded.name')
        .run(assetId, speaker, name);
  }

  speech(assetId: string): Array<{ start_s: number; end_s: number }> {
    return this.sql('SELECT start_s, end_s FROM speech_segments WHERE asset_id = ? ORDER BY idx').all(assetId) as Array<{
      start_s: number;
      end_s: number;
    }>;
  }

  media(assetId: string): MediaRow | undefined {
    return this.sql('SELECT * FROM asset_media WHERE asset_id = ?').get(assetId) as MediaRow | undefined;
  }
}

/** Speakers are anonymous: "Speaker 1", "Speaker 2"… in order of first speech. */
export const speakerName = (n: number): string => `Speaker ${n}`;
