// Face records behind face regions: embeddings and quality.
import type { DB } from './db.ts';
import { floats } from './codec.ts';

export interface NewFace {
  timestamp: number;
  embedding: Float32Array;
  quality: number;
  good: boolean;
  size_px: number;
  sharpness: number;
  pose: { yaw: number; pitch: number; roll: number };
  landmarks: Record<string, [number, number]>;
  emotion: string | null;
  emotion_score: number | null;
  emotions: Array<{ emotion: string; score: number }>;
  /** Estimated age and gender (null when the estimate was not made). */
  age?: number | null;
  gender?: 'female' | 'male' | null;
  gender_score?: number | null;
}

export interface FaceRow {
  id: string;
  asset_id: string;
  timestamp: number;
  embedding: Float32Array;
  quality: number;
  good: boolean;
  size_px: number;
  emotion: string | null;
  emotion_score: number | null;
}

export interface FaceLooks {
  asset_id: string;
  timestamp: number;
  age: number | null;
  gender: 'female' | 'male' | null;
  gender_score: number | null;
  emotion: string | null;
  emotion_score: number | null;
}

export class FacesRepo {
  constructor(private readonly db: DB) {}

  /** Replaces the face records of an asset; ids are those of the face regions just written. */
  replaceForAsset(assetId: string, ids: string[], faces: NewFace[]): void {
    this.db.prepare('DELETE FROM faces WHERE asset_id = ?').run(assetId);
    const insert = this.db.prepare(
      `INSERT INTO faces (id, asset_id, timestamp, embedding, quality, good, size_px, sharpness, pose, landmarks, emotion, emotion_score, emotions, age, gender, gender_score)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    faces.forEach((f, i) => {
      const emb = Buffer.from(f.embedding.buffer, f.embedding.byteOffset, f.embedding.byteLength);
      insert.run(
        ids[i],
        assetId,
        f.timestamp,
        emb,
        f.quality,
        f.good ? 1 : 0,
        f.size_px,
        f.sharpness,
        JSON.stringify(f.pose),
        JSON.stringify(f.landmarks),
        f.emotion,
        f.emotion_score,
        JSON.stringify(f.emotions),
        f.age ?? null,
        f.gender ?? null,
        f.gender_score ?? null,
      );
    });
  }

  /** What a face looks like (the words search finds it by: search/face-words.ts), where and when it was found. */
  attributesOf(faceId: string): FaceLooks | undefined {
    return this.db.prepare('SELECT asset_id, timestamp, age, gender, gender_score, emotion, emotion_score FROM faces WHERE id = ?').get(faceId) as
      FaceLooks | undefined;
  }

  forAsset(assetId: string): FaceRow[] {
    const rows = this.db
      .prepare('SELECT id, asset_id, timestamp, embedding, quality, good, size_px, emotion, emotion_score FROM faces WHERE asset_id = ? ORDER BY timestamp, id')
      .all(assetId) as Array<Omit<FaceRow, 'embedding' | 'good'> & { embedding: Buffer; good: number }>;
    return rows.map((r) => ({
      ...r,
      good: r.good === 1,
      embedding: floats(r.embedding),
    }));
  }
}
