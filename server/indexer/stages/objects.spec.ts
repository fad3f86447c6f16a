// Where the objects stage takes its second look (at the people, seen larger), and what it keeps of it.
import { describe, expect, it } from 'vitest';
import type { DetectedObject } from '../../ml/human.ts';
import { addedBySecondLook, secondLookAt } from './objects.stage.ts';

const thing = (label: string, box: [number, number, number, number], score = 0.6): DetectedObject => ({ label, box, score });

describe('the second look of the objects stage', () => {
  it('looks at the people of a footballer photo, seen larger than in the first look', () => {
    // messi5.jpg: 548 × 342, the player's box as CenterNet gives it.
    const look = secondLookAt([[80, 66, 374, 261]], 548, 342, 512);
    expect(look).toEqual({ left: 61, top: 52, width: 412, height: 289, square: 512 });
  });

  it('takes no look where it gains too little or finds no one', () => {
    // Nobody found.
    expect(secondLookAt([], 1920, 1080, 512)).toBeNull();
    // A portrait: the person fills the frame.
    expect(secondLookAt([[5, 5, 140, 145]], 150, 150, 512)).toBeNull();
    // A crowd across a wide photo: the look would be the whole picture again.
    expect(
      secondLookAt(
        [
          [0, 300, 500, 700],
          [1400, 300, 500, 700],
        ],
        1920,
        1080,
        512,
      ),
    ).toBeNull();
    // Small walkers far away: even seen larger, nobody stands 128 px tall.
    expect(
      secondLookAt(
        [
          [100, 200, 30, 80],
          [600, 220, 30, 85],
        ],
        768,
        576,
        512,
      ),
    ).toBeNull();
    // A small picture is enlarged at most twice.
    expect(secondLookAt([[100, 50, 60, 140]], 400, 300, 512)).toMatchObject({ square: Math.round(Math.max(66, 154) * 2) });
  });

  it('keeps what the first look missed near someone, not what it found, not what is far from people, not what the look cuts', () => {
    const look = { left: 61, top: 52, width: 412, height: 289, square: 512 };
    const size = { width: 548, height: 342 };
    const first = [thing('person', [80, 66, 374, 261], 0.69), thing('chair', [300, 100, 40, 40])];
    const second = [
      thing('sports ball', [336, 286, 53, 49]), // at the player's feet: kept
      thing('chair', [302, 101, 40, 40]), // the first look's chair again: not kept
      thing('person', [200, 80, 100, 200]), // people are the first look's to find
      thing('cup', [62, 53, 10, 10]), // cut by the look's edge inside the picture
    ];
    expect(addedBySecondLook(first, second, look, size).map((o) => o.label)).toEqual(['sports ball']);
    // Far from anyone: a traffic cone taken for a ball in a street scene.
    const walker = [thing('person', [245, 208, 32, 85])];
    const street = { left: 100, top: 100, width: 500, height: 300, square: 512 };
    expect(addedBySecondLook(walker, [thing('sports ball', [438, 176, 12, 12])], street, { width: 768, height: 576 })).toEqual([]);
  });
});
