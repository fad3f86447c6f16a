import { describe, expect, it } from 'vitest';
import { counted, fileSize, progressWords } from './plural.ts';

describe('numbers as the screens say them', () => {
  it('counts with the noun, and sizes files in decimal units', () => {
    expect(counted(1, 'face')).toBe('1 face');
    expect(counted(3, 'face')).toBe('3 faces');
    expect(fileSize(96_000)).toBe('96 kB');
    expect(fileSize(4_200_000)).toBe('4.2 MB');
  });

  it("says how far a run has got: a document's pages, a video's time", () => {
    expect(progressWords({ done: 9, total: 24, unit: 'pages' })).toBe('9 of 24 pages');
    expect(progressWords({ done: 1, total: 1, unit: 'pages' })).toBe('1 of 1 page');
    expect(progressWords({ done: 65.4, total: 750, unit: 'seconds' })).toBe('1:05 of 12:30');
    expect(progressWords({ done: 320, total: 750, unit: 'passages' })).toBe('320 of 750 passages');
    expect(progressWords({ done: 1, total: 1, unit: 'shots' })).toBe('1 of 1 shot');
  });
});
