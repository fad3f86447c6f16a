import { describe, expect, it } from 'vitest';
import { admitInGroups } from './admit.ts';

describe('admitInGroups', () => {
  /** Admits each group after a delay, recording the groups in the order they came and whether one came while another was under way. */
  function recorder() {
    let running = 0;
    const groups: string[][] = [];
    let overlapped = false;
    const admit = async (group: string[]) => {
      if (running > 0) overlapped = true;
      groups.push(group);
      running++;
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    return { admit, groups, overlapped: () => overlapped };
  }

  it('takes small files in groups of a few, in their order, one group at a time', async () => {
    const files = Array.from({ length: 10 }, (_, i) => `f${i}`);
    const { admit, groups, overlapped } = recorder();
    await admitInGroups(files, new Map(files.map((f) => [f, 100])), admit, 4);
    expect(groups).toEqual([
      ['f0', 'f1', 'f2', 'f3'],
      ['f4', 'f5', 'f6', 'f7'],
      ['f8', 'f9'],
    ]);
    expect(overlapped()).toBe(false);
  });

  it('takes no more bytes at once than it may, and a larger file alone: after the files before it, before those after it', async () => {
    const files = ['a', 'b', 'big', 'c', 'd', 'm1', 'm2', 'm3'];
    const { admit, groups } = recorder();
    const sizes = new Map([
      ['a', 1],
      ['b', 1],
      ['big', 100],
      ['c', 1],
      ['d', 1],
      ['m1', 4],
      ['m2', 4],
      ['m3', 4],
    ]);
    await admitInGroups(files, sizes, admit, 4, 10);
    // 10 bytes at once: c, d, m1 and m2 make 10 (allowed), m3 would make 14.
    expect(groups).toEqual([['a', 'b'], ['big'], ['c', 'd', 'm1', 'm2'], ['m3']]);
  });

  it('ends when every group has ended, and passes on an error', async () => {
    let ended = 0;
    await admitInGroups(['a', 'b', 'c'], new Map(), async (g) => {
      await new Promise((r) => setTimeout(r, 5));
      ended += g.length;
    });
    expect(ended).toBe(3);
    await expect(
      admitInGroups(['a', 'b'], new Map(), async (g) => {
        if (g.includes('b')) throw new Error('disk gone');
      }),
    ).rejects.toThrow('disk gone');
  });
});
