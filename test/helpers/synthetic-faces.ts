// Synthetic faces straight into the store (for scale): one video asset whose frames each hold one
// face, with embeddings scattered around `identities` centres.
import type { Store } from '../../server/store/index.ts';
import { planRuns } from '../../server/indexer/plan.ts';
import { deploymentDefaults } from '../../server/contract/stages.ts';
import { seededTable } from './tiny-onnx.ts';

export function insertSyntheticFaces(store: Store, workspaceName: string, n: number, identities: number, dim = 1024): string {
  const ws = store.workspaces.ensure(workspaceName).row;
  const id = `vid_synthetic${String(n).padStart(8, '0')}`;
  const effective = deploymentDefaults();
  store.assets.insertWithRuns(
    {
      id,
      workspace_id: ws.id,
      kind: 'video',
      file_name: 'synthetic.mp4',
      ext: '.mp4',
      stored_path: 'assets/none/original.mp4',
      linked: 0,
      mime_type: 'video/mp4',
      size_bytes: 1,
      sha256: '0'.repeat(64),
      pipeline: 'arrow',
      engine: 'arrow',
      gen1_tier: null,
      index_options: JSON.stringify(effective),
      status: 'completed',
      page_count: null,
      duration_s: n,
      width: 640,
      height: 480,
      created_at: 1,
      completed_at: 1,
      deleted_at: null,
    },
    planRuns(id, 'video', effective, 1).map((r) => ({ ...r, state: 'ok' as const })),
  );
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
