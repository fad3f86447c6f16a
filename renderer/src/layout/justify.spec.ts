import { describe, expect, it } from 'vitest';
import { justify, UNKNOWN_RATIO } from './justify.ts';

describe('justify: rows of one height that fill the width', () => {
  it('fills every row but the last to the width, gaps included', () => {
    const ratios = [1.5, 0.667, 1, 1.778, 1.5, 1.5, 0.75, 2, 1, 1.333, 1.5];
    const rows = justify(ratios, 0, ratios.length, 1000, 200, 4);
    expect(rows.length).toBeGreaterThan(1);
    for (const r of rows.slice(0, -1)) {
      const used = r.widths.reduce((a, b) => a + b, 0) + 4 * (r.widths.length - 1);
      expect(used).toBeGreaterThan(1000 - r.widths.length); // floored widths lose under 1 px each
      expect(used).toBeLessThanOrEqual(1000);
      expect(r.height).toBeLessThanOrEqual(300);
    }
    // Every picture once, in order; each at its ratio.
    expect(rows.map((r) => [r.from, r.to]).flat()).toEqual(rows.flatMap((r, i) => [i === 0 ? 0 : rows[i - 1].to, r.to]));
    expect(rows.at(-1)!.to).toBe(ratios.length);
    expect(rows.at(-1)!.height).toBe(200);
    const first = rows[0];
    expect(first.widths[0] / first.height).toBeCloseTo(1.5, 1);
  });

  it('lays out part of a list (a month), and pictures of unknown shape as 3:2', () => {
    const rows = justify([0, 0, 0, 1, 1, 1], 3, 6, 300, 100, 0);
    expect(rows).toEqual([{ from: 3, to: 6, height: 100, widths: [100, 100, 100] }]);
    const unknown = justify([0], 0, 1, 1000, 100, 0);
    expect(unknown[0].widths[0]).toBe(UNKNOWN_RATIO * 100);
  });

  it('more pictures per row at a smaller target height', () => {
    const ratios = Array.from({ length: 300 }, (_, i) => [1.5, 0.667, 1.333][i % 3]);
    const per = (target: number) => 300 / justify(ratios, 0, 300, 1200, target, 4).length;
    expect(per(110)).toBeGreaterThan(per(190));
    expect(per(190)).toBeGreaterThan(per(300));
  });
});
