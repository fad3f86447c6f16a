// What the optional models are given, as their real weights expect: Whisper's windows of speech,
// CLIP's captions.
import { describe, expect, it } from 'vitest';
import { speechWindows } from '../server/ml/whisper.ts';
import { photoPrompt } from '../server/ml/clip.ts';

describe('model inputs', () => {
  it('joins short speech segments into windows of at most 30 s, cuts long ones, and drops fragments under 0.5 s', () => {
    expect(
      speechWindows([
        { start_s: 0, end_s: 4 },
        { start_s: 5, end_s: 9 },
        { start_s: 20, end_s: 29 },
        { start_s: 31, end_s: 32 },
        { start_s: 40, end_s: 105 },
        { start_s: 200, end_s: 200.3 },
      ]),
    ).toEqual([
      [0, 29],
      [31, 32],
      [40, 70],
      [70, 100],
      [100, 105],
    ]);
    expect(speechWindows([])).toEqual([]);
  });

  it('asks CLIP with a caption, not a bare word', () => {
    expect(photoPrompt('dog')).toBe('a photo of a dog.');
    expect(photoPrompt('elephant')).toBe('a photo of an elephant.');
    expect(photoPrompt('two dogs on a beach')).toBe('a photo of two dogs on a beach.');
    expect(photoPrompt('mountains')).toBe('a photo of mountains.');
    expect(photoPrompt('a photo of a red car')).toBe('a photo of a red car.');
  });
});
