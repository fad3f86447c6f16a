// A count with its noun, as the command line writes it: "1 file", "6 files"; and how far a run has got.
import type { RunProgress } from '../indexer/stage.ts';

export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** "9 of 24 pages", "320 of 750 passages", "12 of 40 shots", "1:05 of 12:30": how far a run has got, for the progress bar. */
export function progressText({ done, total, unit }: RunProgress): string {
  if (unit !== 'seconds') return `${Math.floor(done)} of ${counted(Math.round(total), unit.slice(0, -1))}`;
  const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  return `${clock(done)} of ${clock(total)}`;
}
