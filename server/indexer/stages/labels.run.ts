// labels, the run: zero-shot over the scene labels with CLIP's text half against the stored
// picture vectors ("a photo of <label>", softmax at CLIP's temperature), or labels derived from
// the regions found on each frame: COCO objects and their everyday groups (animal, vehicle, food),
// faces (people, group of people, portrait) and text.
import { embedClipTexts, photoPrompt, zeroShot } from '../../ml/clip.ts';
import { isInstalled, modelsDir } from '../../ml/models.ts';
import { PICTURE_EMBEDDING_MODEL } from '../../ml/catalogue.ts';
import { providerOf } from '../../ml/providers.ts';
import { loadOnce } from '../../ml/transformers.ts';
import { defineRunner, ok } from '../stage.ts';
import { labelsStage, type Label, type LabelsOutput, type RegionLite } from './labels.stage.ts';

/** The scenes and subjects the zero-shot labeller tells apart. */
export const SCENE_LABELS: readonly string[] = [
  'beach',
  'forest',
  'mountain',
  'desert',
  'snow',
  'field',
  'farm',
  'garden',
  'park',
  'river',
  'lake',
  'sea',
  'waterfall',
  'sky',
  'sunset',
  'night',
  'underwater',
  'city street',
  'road',
  'bridge',
  'building',
  'house',
  'church',
  'museum',
  'library',
  'shop',
  'market',
  'restaurant',
  'kitchen',
  'living room',
  'bedroom',
  'bathroom',
  'office',
  'classroom',
  'laboratory',
  'hospital',
  'factory',
  'airport',
  'train station',
  'harbour',
  'stadium',
  'gym',
  'swimming pool',
  'playground',
  'stage',
  'concert',
  'party',
  'wedding',
  'meeting',
  'lecture',
  'interview',
  'crowd',
  'portrait',
  'group photo',
  'document',
  'screenshot',
  'diagram',
  'map',
  'chart',
  'drawing',
  'painting',
  'cartoon',
  'food',
  'fruit',
  'drink',
  'cat',
  'dog',
  'bird',
  'horse',
  'fish',
  'insect',
  'flower',
  'tree',
  'car',
  'bicycle',
  'motorcycle',
  'boat',
  'airplane',
  'train',
  'toy',
  'computer',
  'phone',
  'sport',
  'game',
];
export const SCENE_PROMPT = (label: string) => photoPrompt(label);

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

export type DerivedLabel = Label & { source: 'derived:objects' | 'derived:faces' | 'derived:text' };

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
    for (const [group, members] of Object.entries(GROUPS))
      if (members.includes(r.label as string)) offer({ label: group, confidence: c, source: 'derived:objects' });
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

export const runLabels = defineRunner(labelsStage, async ({ options, input, dataDir }) => {
  const { regions, pictures } = input;
  const minConfidence = options.min_confidence ?? 0.5;
  const topK = options.top_k ?? 5;
  let frames: LabelsOutput['frames'];
  let details: Record<string, unknown>;
  if (pictures.length > 0 && isInstalled(dataDir, PICTURE_EMBEDDING_MODEL)) {
    frames = (await zeroShotLabels(dataDir, pictures, minConfidence, topK)).filter((f) => f.labels.length > 0);
    details = { source: `zero-shot over ${SCENE_LABELS.length} scene labels`, model: PICTURE_EMBEDDING_MODEL, provider: providerOf(PICTURE_EMBEDDING_MODEL) };
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
});
