// labels: scene labels per frame (`min_confidence`, `top_k`; run: labels.run.ts). With the
// image-text model (CLIP) installed, each picture the embeddings stage embedded is scored against
// the scene labels zero-shot, source `zero-shot:<model>`. Without it, labels are derived from what
// the other stages found on the same frame, and each label's `source` says so. Nothing is invented:
// a frame where nothing was found gets no label. Writes search entries (modality `label`); the
// report lists the labels.
import type { RegionRow } from '../../store/regions.repo.ts';
import type { NewEntry } from '../../store/search.repo.ts';
import { isInstalled } from '../../ml/models.ts';
import { PICTURE_EMBEDDING_MODEL } from '../../ml/catalogue.ts';
import { defineStage } from '../stage.ts';

export interface Label {
  label: string;
  confidence: number;
  source: 'derived:objects' | 'derived:faces' | 'derived:text' | `zero-shot:${string}`;
}

export type RegionLite = Pick<RegionRow, 'timestamp' | 'kind' | 'label' | 'confidence' | 'w' | 'h' | 'text'>;

export interface LabelsInput {
  regions: RegionLite[];
  pictures: Array<{ timestamp: number; vector: Float32Array }>;
}

export interface LabelsOutput {
  frames: Array<{ timestamp: number; labels: Label[] }>;
}

export const labelsStage = defineStage<LabelsInput, LabelsOutput, 'labels'>({
  name: 'labels',
  version: 2,
  kinds: ['video', 'image'],
  dependsOn: ['extract', 'ocr', 'faces', 'objects', 'embeddings'],
  requires: ['extract'],
  model: null,
  availability: ({ dataDir }) => ({
    available: true,
    reason: isInstalled(dataDir, PICTURE_EMBEDDING_MODEL)
      ? null
      : `derived from objects, faces and text until the scene model (${PICTURE_EMBEDDING_MODEL}) is installed`,
  }),
  prepare: (store, assetId) => ({
    regions: store.regions
      .all(assetId)
      .map((r) => ({ timestamp: r.timestamp, kind: r.kind, label: r.label, confidence: r.confidence, w: r.w, h: r.h, text: r.text })),
    pictures: store.vectors.picturesOf(assetId, PICTURE_EMBEDDING_MODEL),
  }),
  save(store, assetId, { frames }) {
    const entries: NewEntry[] = [];
    let previous = new Set<string>();
    for (const f of frames) {
      const now = new Set(f.labels.map((l) => l.label));
      for (const l of f.labels) {
        if (!previous.has(l.label)) entries.push({ modality: 'label', timestamp: f.timestamp, page: null, ref: null, region_id: null, text: l.label });
      }
      previous = now;
    }
    store.search.replaceForStage(assetId, 'labels', entries);
  },
});
