import { describe, expect, it } from 'vitest';
import { admitInTurn } from './admit.ts';

describe('admitInTurn', () => {
  /** Admits with a delay, recording how many were under way at each start and the order of starts. */
  function recorder() {
    let running = 0;
    const started: Array<{ file: string; alongside: number }> = [];
    const admit = async (file: string) => {
      started.push({ file, alongside: running });
      running++;
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    return { admit, started };
  }

  it('takes small files in a few at a time, in their order', async () => {
    const files = Array.from({ length: 10 }, (_, i) => `f${i}`);
    const { admit, started } = recorder();
    await admitInTurn(files, new Map(files.map((f) => [f, 100])), admit, 4);
    expect(started.map((s) => s.file)).toEqual(files);
    expect(Math.max(...started.map((s) => s.alongside))).toBe(3);
  });

  it('takes no more bytes at once than it may, and a larger file alone: after the files before it, before those after it', async () => {
    const files = ['a', 'b', 'big', 'c', 'd', 'm1', 'm2', 'm3'];
    const { admit, started } = recorder();
    await admitInTurn(
      files,
      new Map([
        ['a', 1],
        ['b', 1],
        ['big', 100],
        ['c', 1],
        ['d', 1],
        ['m1', 4],
        ['m2', 4],
        ['m3', 4],
      ]),
      admit,
      4,
      10,
    );
    expect(started.map((s) => s.file)).toEqual(files);
    expect(started.find((s) => s.file === 'big')!.alongside).toBe(0);
    expect(started.find((s) => s.file === 'c')!.alongside).toBe(0);
    expect(started.find((s) => s.file === 'd')!.alongside).toBe(1);
    // 10 bytes at once: c, d and m1 together (6), m2 would make 10 (allowed), m3 14 (waits).
    expect(started.find((s) => s.file === 'm2')!.alongside).toBe(3);
    expect(started.find((s) => s.file === 'm3')!.alongside).toBeLessThan(3);
  });

  it('ends when every file has ended, and passes on an error', async () => {
    let ended = 0;
    await admitInTurn(['a', 'b', 'c'], new Map(), async () => {
      await new Promise((r) => setTimeout(r, 5));
      ended++;
    });
    expect(ended).toBe(3);
    await expect(
      admitInTurn(['a', 'b'], new Map(), async (f) => {
        if (f === 'b') throw new Error('disk gone');
      }),
    ).rejects.toThrow('disk gone');
  });
});
