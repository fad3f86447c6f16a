// labels: scene labels per frame (`min_confidence`, `top_k`). No zero-shot scene model ships with
// this build, so labels are derived from what the other stages found on the same frame, and each
// label's `source` says so: COCO objects and their everyday groups (animal, vehicle, food), faces
// (people, group of people, portrait) and text. Nothing is invented: a frame where nothing was
// found gets no label. Writes search entries (modality `label`); the report lists the labels.
import type { RegionRow } from '../../store/regions.repo.ts';
import { ok, type StageDefinition } from '../stage.ts';

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
  frames: Array<{ timestamp: number; labels: DerivedLabel[] }>;
}

export const labelsStage: StageDefinition = {
  name: 'labels',
  version: 1,
  kinds: ['video', 'image'],
  dependsOn: ['extract', 'ocr', 'faces', 'objects'],
  requires: ['extract'],
  model: null,
  availability: () => ({ available: true, reason: 'derived from objects, faces and text until a scene-label model is installed' }),
  prepare: (store, assetId) =>
    store.regions.all(assetId).map((r) => ({ timestamp: r.timestamp, kind: r.kind, label: r.label, confidence: r.confidence, w: r.w, h: r.h, text: r.text })),
  async run({ options, input }) {
    const regions = (input as RegionLite[] | undefined) ?? [];
    const byTime = new Map<number, RegionLite[]>();
    for (const r of regions) byTime.set(r.timestamp, [...(byTime.get(r.timestamp) ?? []), r]);
    const frames = [...byTime.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([timestamp, rs]) => ({ timestamp, labels: deriveLabels(rs, Number(options.min_confidence ?? 0.5), Number(options.top_k ?? 5)) }))
      .filter((f) => f.labels.length > 0);
    const distinct = [...new Set(frames.flatMap((f) => f.labels.map((l) => l.label)))];
    const output: LabelsOutput = { frames };
    return ok({ frames: frames.length, labels: distinct.length }, output, {
      source: 'derived from the objects, faces and text found (no scene-label model installed)',
      labels: distinct,
    });
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
