// Synthetic faces straight into the store (for scale): one video asset whose frames each hold one
// face, with embeddings scattered around `identities` centres.
import type { Store } from '../../server/store/index.ts';
import { insertAsset } from './asset-row.ts';
import { seededTable } from './tiny-onnx.ts';

export function insertSyntheticFaces(store: Store, workspaceName: string, n: number, identities: number, dim = 1024): string {
  const id = `vid_synthetic${String(n).padStart(8, '0')}`;
  insertAsset(store, {
    id,
    workspace: workspaceName,
    kind: 'video',
    row: { file_name: 'synthetic.mp4', stored_path: 'assets/none/original.mp4', status: 'completed', completed_at: 1, duration_s: n, width: 640, height: 480 },
    runs: (r) => ({ ...r, state: 'ok' }),
  });
  const centres = Array.from({ length: identities }, (_, k) => seededTable(1, dim, 1000 + k));
  const noise = seededTable(n, dim, 99);
  store.transaction(() => {
    const ids = store.regions.replaceForStage(
      id,
      'faces',
      Array.from({ length: n }, (_, i) => ({
        timestamp: i,
        kind: 'face' as const,
        x: 0.3,
        y: 0.3,
        w: 0.2,
        h: 0.3,
        label: null,
        text: null,
        confidence: 0.99,
        quality: 0.9,
        person_id: null,
        source: 'synthetic',
      })),
    );
    store.faces.replaceForAsset(
      id,
      ids,
      Array.from({ length: n }, (_, i) => ({
        timestamp: i,
        embedding: centres[i % identities].map((c, j) => c + 0.35 * noise[i * dim + j]),
        quality: 0.9,
        good: true,
        size_px: 120,
        sharpness: 30,
        pose: { yaw: 0, pitch: 0, roll: 0 },
        landmarks: {},
        emotion: null,
        emotion_score: null,
        emotions: [],
      })),
    );
  });
  return id;
}
