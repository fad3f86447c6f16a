// Identifiers sort in the order they were made, within one millisecond too (the queue takes files
// in that order), and never repeat.
import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

describe('newId', () => {
  it('makes ids that sort in the order they were made, many to a millisecond, none twice', () => {
    const ids = Array.from({ length: 5000 }, () => newId('vid'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^vid_[0-9a-hjkmnp-tv-z]{20}$/);
    // Most of them were made in a millisecond shared with others (what the order within one is about).
    expect(new Set(ids.map((id) => id.slice(4, 13))).size).toBeLessThan(ids.length / 5);
  });
});
