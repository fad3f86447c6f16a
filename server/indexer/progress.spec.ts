import { describe, expect, it } from 'vitest';
import { throttledProgress } from './progress.ts';
import type { RunProgress } from './stage.ts';

describe('throttledProgress', () => {
  it('passes on the first report at once, then at most one every interval', () => {
    let t = 0;
    const sent: RunProgress[] = [];
    const report = throttledProgress(
      (p) => sent.push(p),
      1000,
      () => t,
    );
    report({ done: 0, total: 24, unit: 'pages' });
    t = 400;
    report({ done: 1, total: 24, unit: 'pages' });
    t = 999;
    report({ done: 2, total: 24, unit: 'pages' });
    t = 1000;
    report({ done: 3, total: 24, unit: 'pages' });
    t = 1500;
    report({ done: 4, total: 24, unit: 'pages' });
    t = 2100;
    report({ done: 5, total: 24, unit: 'pages' });
    expect(sent.map((p) => p.done)).toEqual([0, 3, 5]);
    expect(sent[0]).toEqual({ done: 0, total: 24, unit: 'pages' });
  });

  it('passes on every report when the interval is 0', () => {
    const sent: number[] = [];
    const report = throttledProgress(
      (p) => sent.push(p.done),
      0,
      () => 5,
    );
    for (let i = 0; i <= 3; i++) report({ done: i, total: 3, unit: 'pages' });
    expect(sent).toEqual([0, 1, 2, 3]);
  });
});
