import { describe, expect, it } from 'vitest';
import { PlanStopped, planClusters, type ClusterFace } from './cluster.ts';

const face = (id: string, v: number[]): ClusterFace => ({ id, embedding: Float32Array.from(v), good: true, frame: `${id}@0`, excluded: [] });

describe('a grouping plan', () => {
  const faces = [face('f1', [1, 0, 0]), face('f2', [0.99, 0.05, 0]), face('f3', [0.98, 0, 0.05]), face('f4', [0, 1, 0])];

  it('groups three alike faces and leaves the fourth waiting', () => {
    const plan = planClusters(faces, []);
    expect(plan.new_people.map((g) => g.face_ids)).toEqual([['f1', 'f2', 'f3']]);
    expect(plan.waiting).toBe(1);
  });

  it('stops at its next step when asked (the service is stopping), with nothing returned', () => {
    let calls = 0;
    expect(() => planClusters(faces, [], { stopped: () => ++calls > 2 })).toThrow(PlanStopped);
    expect(calls).toBe(3);
  });
});
