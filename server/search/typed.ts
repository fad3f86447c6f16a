// Typed search (SPEC 4.5): one dimension. character = people by name; location = where photos were
// taken (GPS places, weighted first), then scene labels and text seen (signs, captions); emotion = faces whose expression the query names; music = not
// available on this deployment.
import type { Modality } from '../contract/search.ts';
import { queryTerms } from './tokenizer.ts';

/** Words people use for the expressions the faces stage tells apart. */
export const EMOTION_WORDS: Readonly<Record<string, string>> = {
  happy: 'happy',
  happiness: 'happy',
  smile: 'happy',
  smiling: 'happy',
  smiles: 'happy',
  joy: 'happy',
  joyful: 'happy',
  laughing: 'happy',
  sad: 'sad',
  sadness: 'sad',
  unhappy: 'sad',
  crying: 'sad',
  angry: 'angry',
  anger: 'angry',
  mad: 'angry',
  furious: 'angry',
  surprise: 'surprise',
  surprised: 'surprise',
  astonished: 'surprise',
  fear: 'fear',
  afraid: 'fear',
  scared: 'fear',
  frightened: 'fear',
  disgust: 'disgust',
  disgusted: 'disgust',
  neutral: 'neutral',
  calm: 'neutral',
  serious: 'neutral',
};

/** The expressions a query names (every face entry reads "face <expression>"). */
export function emotionsIn(query: string): string[] {
  return [
    ...new Set(
      queryTerms(query)
        .map((w) => EMOTION_WORDS[w])
        .filter(Boolean),
    ),
  ];
}

export const EMOTION_NAMES = [...new Set(Object.values(EMOTION_WORDS))];

/** The kinds of evidence a dimension searches. */
export const TYPED_MODALITIES: Record<'character' | 'location' | 'emotion', Modality[]> = {
  character: ['person'],
  location: ['place', 'label', 'ocr'],
  emotion: ['person'],
};
