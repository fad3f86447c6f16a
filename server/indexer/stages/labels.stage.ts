// labels: scene labels per frame (`min_confidence`, `top_k`). With the image-text model (CLIP)
// installed, each picture the embeddings stage embedded is scored against SCENE_LABELS zero-shot
// ("a photo of <label>", softmax at CLIP's temperature), source `zero-shot:<model>`. Without it,
// labels are derived from what the other stages found on the same frame, and each label's `source`
// says so: COCO objects and their everyday groups (animal, vehicle, food), faces (people, group of
// people, portrait) and text. Nothing is invented: a frame where nothing was found gets no label.
// Writes search entries (modality `label`); the report lists the labels.
import type { RegionRow } from '../../store/regions.repo.ts';
import { embedClipTexts, zeroShot } from '../../ml/clip.ts';
import { isInstalled, modelsDir } from '../../ml/models.ts';
import { executionProvider } from '../../ml/providers.ts';
import { loadOnce } from '../../ml/transformers.ts';
import { PICTURE_EMBEDDING_MODEL } from './embeddings.stage.ts';
import { ok, type StageDefinition } from '../stage.ts';

/** The scenes and subjects the zero-shot labeller tells apart. */
export const SCENE_LABELS: readonly string[] = [
  'beach', 'forest', 'mountain', 'desert', 'snow', 'field', 'farm', 'garden', 'park', 'river', 'lake', 'sea', 'waterfall',
  'sky', 'sunset', 'night', 'underwater', 'city street', 'road', 'bridge', 'building', 'house', 'church', 'museum',
  'library', 'shop', 'market', 'restaurant', 'kitchen', 'living room', 'bedroom', 'bathroom', 'office', 'classroom',
  'laboratory', 'hospital', 'factory', 'airport', 'train station', 'harbour', 'stadium', 'gym', 'swimming pool',
  'playground', 'stage', 'concert', 'party', 'wedding', 'meeting', 'lecture', 'interview', 'crowd', 'portrait',
  'group photo', 'document', 'screenshot', 'diagram', 'map', 'chart', 'drawing', 'painting', 'cartoon', 'food', 'fruit',
  'drink', 'cat', 'dog', 'bird', 'horse', 'fish', 'insect', 'flower', 'tree', 'car', 'bicycle', 'motorcycle', 'boat',
  'airplane', 'train', 'toy', 'computer', 'phone', 'sport', 'game',
];
export const SCENE_PROMPT = (label: string) => `a photo of ${label}`;

/** Zero-shot labels for each embedded picture, best first. */
async function zeroShotLabels(
  dataDir: string,
  pictures: Array<{ timestamp: number; vector: Float32Array }>,
  minConfidence: number,
  topK: number,
): Promise<Array<{ timestamp: number; labels: Label[] }>> {
  const root = modelsDir(dataDir);
  const phrases = await loadOnce(['scene-prompts', root], () => embedClipTexts(root, PICTURE_EMBEDDING_MODEL, SCENE_LABELS.map(SCENE_PROMPT)));
  const source = `zero-shot:${PICTURE_EMBEDDING_MODEL}` as const;
  return pictures.map((p) => ({
    timestamp: p.timestamp,
    labels: zeroShot(p.vector, phrases)
      .map((confidence, i) => ({ label: SCENE_LABELS[i], confidence: Math.round(confidence * 1000) / 1000, source }))
      .filter((l) => l.confidence >= minConfidence)
      .sort((a, b) => b.confidence - a.confidence)
      .slice(0, topK),
  }));
}

const GROUPS: Record<string, readonly string[]> = {
  animal: ['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe'],
  vehicle: ['bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat'],
  food: ['banana', 'apple', 'sandwich', 'orange', 'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake'],
  furniture: ['chair', 'couch', 'bed', 'dining table', 'bench'],
  electronics: ['tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone'],
};

export interface DerivedLabel {
  label: string;
  confidence: number;
  source: 'derived:objects' | 'derived:faces' | 'derived:text';
}

type Label = DerivedLabel | { label: string; confidence: number; source: `zero-shot:${string}` };

type RegionLite = Pick<RegionRow, 'timestamp' | 'kind' | 'label' | 'confidence' | 'w' | 'h' | 'text'>;

/** Labels for one frame from the regions found on it, best first. */
export function deriveLabels(regions: RegionLite[], minConfidence: number, topK: number): DerivedLabel[] {
  const best = new Map<string, DerivedLabel>();
  const offer = (l: DerivedLabel) => {
    const have = best.get(l.label);
    if (!have || l.confidence > have.confidence) best.set(l.label, l);
  };
  for (const r of regions.filter((x) => x.kind === 'object' && x.label)) {
    const c = r.confidence ?? 0;
    offer({ label: r.label as string, confidence: c, source: 'derived:objects' });
    for (const [group, members] of Object.entries(GROUPS)) if (members.includes(r.label as string)) offer({ label: group, confidence: c, source: 'derived:objects' });
  }
  const faces = regions.filter((x) => x.kind === 'face');
  if (faces.length > 0) {
    const c = Math.max(...faces.map((f) => f.confidence ?? 0));
    offer({ label: 'people', confidence: c, source: 'derived:faces' });
    if (faces.length >= 3) offer({ label: 'group of people', confidence: c, source: 'derived:faces' });
    if (faces.length <= 2 && faces.some((f) => f.w * f.h >= 0.12)) offer({ label: 'portrait', confidence: c, source: 'derived:faces' });
  }
  const lines = regions.filter((x) => x.kind === 'text' && x.text);
  const chars = lines.reduce((n, l) => n + (l.text as string).length, 0);
  if (chars >= 40) {
    const c = lines.reduce((n, l) => n + (l.confidence ?? 0.5), 0) / lines.length;
    offer({ label: 'text', confidence: c, source: 'derived:text' });
  }
  return [...best.values()]
    .filter((l) => l.confidence >= minConfidence)
    .sort((a, b) => b.confidence - a.confidence || a.label.localeCompare(b.label))
    .slice(0, topK)
    .map((l) => ({ ...l, confidence: Math.round(l.confidence * 1000) / 1000 }));
}

interface LabelsOutput {
  frames: Array<{ timestamp: number; labels: Label[] }>;
}

interface LabelsInput {
  regions: RegionLite[];
  pictures: Array<{ timestamp: number; vector: Float32Array }>;
}

export const labelsStage: StageDefinition = {
  name: 'labels',
  version: 2,
  kinds: ['video', 'image'],
  dependsOn: ['extract', 'ocr', 'faces', 'objects', 'embeddings'],
  requires: ['extract'],
  model: null,
  availability: ({ dataDir }) => ({
    available: true,
    reason: isInstalled(dataDir, PICTURE_EMBEDDING_MODEL) ? null : 'derived from objects, faces and text until the scene model (clip-vit-base-patch32) is installed',
  }),
  prepare: (store, assetId): LabelsInput => ({
    regions: store.regions.all(assetId).map((r) => ({ timestamp: r.timestamp, kind: r.kind, label: r.label, confidence: r.confidence, w: r.w, h: r.h, text: r.text })),
    pictures: store.vectors.picturesOf(assetId, PICTURE_EMBEDDING_MODEL),
  }),
  async run({ options, input, dataDir }) {
    const { regions, pictures } = (input as LabelsInput | undefined) ?? { regions: [], pictures: [] };
    const minConfidence = Number(options.min_confidence ?? 0.5);
    const topK = Number(options.top_k ?? 5);
    let frames: LabelsOutput['frames'];
    let details: Record<string, unknown>;
    if (pictures.length > 0 && isInstalled(dataDir, PICTURE_EMBEDDING_MODEL)) {
      frames = (await zeroShotLabels(dataDir, pictures, minConfidence, topK)).filter((f) => f.labels.length > 0);
      details = { source: `zero-shot over ${SCENE_LABELS.length} scene labels`, model: PICTURE_EMBEDDING_MODEL, provider: executionProvider() };
    } else {
      const byTime = new Map<number, RegionLite[]>();
      for (const r of regions) byTime.set(r.timestamp, [...(byTime.get(r.timestamp) ?? []), r]);
      frames = [...byTime.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([timestamp, rs]) => ({ timestamp, labels: deriveLabels(rs, minConfidence, topK) }))
        .filter((f) => f.labels.length > 0);
      details = { source: 'derived from the objects, faces and text found (no scene-label model installed)' };
    }
    const distinct = [...new Set(frames.flatMap((f) => f.labels.map((l) => l.label)))];
    const output: LabelsOutput = { frames };
    return ok({ frames: frames.length, labels: distinct.length }, output, { ...details, labels: distinct });
  },
  save(store, assetId, output) {
    const { frames } = output as LabelsOutput;
    const entries = [];
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
};
