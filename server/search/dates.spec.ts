import { describe, expect, it } from 'vitest';
import { findDates } from './dates.ts';

// A fixed clock: Thursday 26 November 2026.
const NOW = new Date('2026-11-26T10:00:00Z');
const range = (q: string, now = NOW) => {
  const r = findDates(q, now);
  return r ? [r.range.after.slice(0, 10), r.range.before.slice(0, 10), r.rest] : null;
};

describe('dates people say', () => {
  it('reads the days of Christmas and New Year, with a year or the latest one begun', () => {
    expect(range('christmas eve 2019')).toEqual(['2019-12-24', '2019-12-25', '']);
    expect(range('Christmas Day 2020 dinner')).toEqual(['2020-12-25', '2020-12-26', 'dinner']);
    expect(range('christmas 2018')).toEqual(['2018-12-24', '2018-12-27', '']);
    expect(range("new year's eve")).toEqual(['2025-12-31', '2026-01-01', '']);
    expect(range('New Year’s Day 2021')).toEqual(['2021-01-01', '2021-01-02', '']);
    expect(range('fireworks new years eve 2019')).toEqual(['2019-12-31', '2020-01-01', 'fireworks']);
    expect(range('christmas eve')).toEqual(['2025-12-24', '2025-12-25', '']);
    // On 25 December, "christmas eve" was yesterday.
    expect(range('christmas eve', new Date('2026-12-25T12:00:00Z'))).toEqual(['2026-12-24', '2026-12-25', '']);
  });

  it('reads "last", "this" and "next" against the clock', () => {
    expect(range('last christmas')).toEqual(['2025-12-24', '2025-12-27', '']);
    expect(range('last christmas', new Date('2026-12-28T12:00:00Z'))).toEqual(['2026-12-24', '2026-12-27', '']);
    expect(range('this christmas')).toEqual(['2026-12-24', '2026-12-27', '']);
    expect(range('last easter')).toEqual(['2026-04-03', '2026-04-07', '']);
  });

  it('reads Easter and its days', () => {
    expect(range('Easter 2021')).toEqual(['2021-04-02', '2021-04-06', '']);
    expect(range('easter sunday 2019')).toEqual(['2019-04-21', '2019-04-22', '']);
    expect(range('easter monday 2024')).toEqual(['2024-04-01', '2024-04-02', '']);
  });

  it('leaves holiday things as words', () => {
    expect(findDates('christmas tree', NOW)).toBeNull();
    expect(findDates('easter egg hunt', NOW)).toBeNull();
  });

  it('reads the weekend of a date', () => {
    // 3 May 2019 was a Friday: the weekend is the 4th and 5th.
    expect(range('the weekend of 3 May 2019')).toEqual(['2019-05-04', '2019-05-06', '']);
    // 3 May 2026 was a Sunday: its weekend began the day before.
    expect(range('beach the weekend of 3 May')).toEqual(['2026-05-02', '2026-05-04', 'beach']);
    // 5 December is still to come in 2026: last year's.
    expect(range('weekend of December 5')).toEqual(['2025-12-06', '2025-12-08', '']);
  });

  it('reads seasons with a year', () => {
    expect(range('summer 2018')).toEqual(['2018-06-01', '2018-09-01', '']);
    expect(range('last summer')).toEqual(['2026-06-01', '2026-09-01', '']);
  });
});
