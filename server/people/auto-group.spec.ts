import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AutoGroup } from './auto-group.ts';

describe('re-grouping by itself: when it runs', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const scheduler = (busyTimes = 0) => {
    const runs: Array<{ ws: string; at: number }> = [];
    let busy = busyTimes;
    const auto = new AutoGroup(
      { quietMs: 1000, maxWaitMs: 5000 },
      async (ws) => {
        if (busy-- > 0) return false;
        runs.push({ ws, at: Date.now() });
        return true;
      },
      () => Date.now(),
    );
    return { auto, runs };
  };

  it('runs once, a quiet period after the last face waited', async () => {
    const { auto, runs } = scheduler();
    const t0 = Date.now();
    auto.facesWaiting('a');
    await vi.advanceTimersByTimeAsync(600);
    auto.facesWaiting('a');
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([{ ws: 'a', at: t0 + 1600 }]);
    expect(auto.isPending('a')).toBe(false);
  });

  it('runs at the latest maxWaitMs after the first face under a steady stream, then waits again', async () => {
    const { auto, runs } = scheduler();
    const t0 = Date.now();
    for (let i = 0; i < 30; i++) {
      auto.facesWaiting('a');
      await vi.advanceTimersByTimeAsync(500);
    }
    expect(runs.map((r) => r.at - t0)).toEqual([5000, 10000, 15000]);
  });

  it('keeps workspaces apart, and tries again after a quiet period when a re-group is running', async () => {
    const { auto, runs } = scheduler(1);
    const t0 = Date.now();
    auto.facesWaiting('a');
    auto.facesWaiting('b');
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toEqual([{ ws: 'b', at: t0 + 1000 }]); // a was busy
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs.map((r) => r.ws)).toEqual(['b', 'a']);
  });

  it('runs nothing after stop', async () => {
    const { auto, runs } = scheduler();
    auto.facesWaiting('a');
    auto.stop();
    auto.facesWaiting('b');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toEqual([]);
  });
});
