import { describe, expect, it } from 'vitest';
import { counted, progressText } from './counted.ts';

describe('counted and progressText', () => {
  it('counts with the noun', () => {
    expect(counted(1, 'file')).toBe('1 file');
    expect(counted(6, 'file')).toBe('6 files');
  });

  it("says a run's pages read or passages encoded, and a video's time looked at as minutes and seconds", () => {
    expect(progressText({ done: 9, total: 24, unit: 'pages' })).toBe('9 of 24 pages');
    expect(progressText({ done: 0, total: 1, unit: 'pages' })).toBe('0 of 1 page');
    expect(progressText({ done: 65.4, total: 750, unit: 'seconds' })).toBe('1:05 of 12:30');
    expect(progressText({ done: 2, total: 8.329, unit: 'seconds' })).toBe('0:02 of 0:08');
    expect(progressText({ done: 320, total: 750, unit: 'passages' })).toBe('320 of 750 passages');
    expect(progressText({ done: 0, total: 1, unit: 'passages' })).toBe('0 of 1 passage');
    expect(progressText({ done: 12, total: 40, unit: 'shots' })).toBe('12 of 40 shots');
  });
});
