import { describe, expect, it } from 'vitest';
import { heard } from './whisper.ts';

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
