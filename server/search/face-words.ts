// The words a face is found by in ordinary search: who (woman, man, girl, boy, child, baby,
// teenager, elderly…) from the faces stage's age and gender estimates, and how they look (smiling,
// sad, surprised…) from its expression. Written as a `person` search entry over the face's box, so
// "woman smiling" finds the photo and points at the face. The thresholds keep uncertain estimates
// out: a word is written only when the estimate behind it is clear.
import type { NewEntry } from '../store/search.repo.ts';

/** Gender is named only at this confidence or more. */
export const MIN_GENDER_SCORE = 0.7;
/** An expression is named only at this score or more (the faces stage's top expression). */
export const MIN_EXPRESSION_SCORE = 0.5;

/** The words of each expression the faces stage tells apart. */
export const EXPRESSION_WORDS: Readonly<Record<string, readonly string[]>> = {
  happy: ['happy', 'smiling', 'smile', 'laughing', 'cheerful'],
  sad: ['sad', 'unhappy'],
  surprise: ['surprised', 'astonished'],
  angry: ['angry', 'annoyed'],
  fear: ['scared', 'afraid', 'fearful'],
  disgust: ['disgusted'],
  neutral: ['neutral', 'serious', 'calm'],
};

export interface FaceAttributes {
  age: number | null;
  gender: 'female' | 'male' | null;
  gender_score: number | null;
  emotion: string | null;
  emotion_score: number | null;
}

/** Who: by estimated age, then gender where it is clear. */
export function whoWords(f: Pick<FaceAttributes, 'age' | 'gender' | 'gender_score'>): string[] {
  const g = f.gender && (f.gender_score ?? 0) >= MIN_GENDER_SCORE ? f.gender : null;
  const age = f.age;
  const words = ['person'];
  if (age === null || !Number.isFinite(age)) {
    if (g) words.push(g === 'female' ? 'woman' : 'man');
    return words;
  }
  if (age < 3) words.push('baby', 'child');
  else if (age < 13) words.push('child', 'kid', ...(g ? [g === 'female' ? 'girl' : 'boy'] : []));
  else if (age < 18) words.push('teenager', ...(g ? [g === 'female' ? 'girl' : 'boy'] : []));
  else {
    words.push('adult');
    if (g) words.push(g === 'female' ? 'woman' : 'man');
    if (age >= 65) words.push('elderly', 'old');
  }
  return words;
}

/** The search text of a face: "face <expression> <expression words> <who>", e.g. "face happy smiling … woman". */
export function faceWords(f: FaceAttributes): string {
  const expression = f.emotion && (f.emotion_score ?? 0) >= MIN_EXPRESSION_SCORE ? f.emotion : null;
  // The expression's own name leads (typed emotion search reads it), its words follow, each once.
  return [...new Set(['face', ...(expression ? [expression, ...(EXPRESSION_WORDS[expression] ?? [])] : []), ...whoWords(f)])].join(' ');
}

/** The search entry of a face found at `timestamp` (on `page` of a document), over its region. */
export function personEntry(f: FaceAttributes & { timestamp: number; page: number | null }, regionId: string): NewEntry {
  return { modality: 'person', timestamp: f.timestamp, page: f.page, ref: null, region_id: regionId, text: faceWords(f) };
}
