import { describe, expect, it } from 'vitest';
import { LOOPING, compressionRatio, heard, withoutRepeats } from './whisper.ts';

describe('heard', () => {
  const speech = [
    { start_s: 0.6, end_s: 7.4 },
    { start_s: 8.2, end_s: 28.8 },
  ];
  it('keeps a segment on speech, even one that runs a little past it', () => {
    expect(heard({ start_s: 0.58, end_s: 7.58 }, speech)).toBe(true);
    expect(heard({ start_s: 28.5, end_s: 29.5 }, speech)).toBe(true);
  });
  it('drops words written into the silence after the last voice', () => {
    expect(heard({ start_s: 29.58, end_s: 30.58 }, speech)).toBe(false);
    expect(heard({ start_s: 7.45, end_s: 8.1 }, speech)).toBe(false);
  });
});

describe('decoding loops', () => {
  it('tells a looping text from speech by how well it compresses', () => {
    expect(compressionRatio('And Mr. John Dashwood had then leisure to consider how much there might be prudently in his power to do for them.')).toBeLessThan(
      LOOPING,
    );
    expect(compressionRatio('I am going to the store. '.repeat(12))).toBeGreaterThan(LOOPING);
  });
  it('drops a segment that says the one before again, keeping short repeats ("five, five")', () => {
    const seg = (text: string, t: number) => ({ start_s: t, end_s: t + 1, text });
    expect(
      withoutRepeats([seg('Thank you for watching.', 0), seg('thank you for watching', 1), seg('Five.', 2), seg('Five.', 3)]).map((s) => s.start_s),
    ).toEqual([0, 2, 3]);
  });
});
