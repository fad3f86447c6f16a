// Numbers as a reader takes them: a count with its noun ("1 face", "3 faces"), a file's size.
import type { Activity } from './api/collections.ts';

/** How far a run has got, as `GET /index/activity` says it. */
type RunProgress = NonNullable<Activity['running'][number]['progress']>;

export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A file's size in decimal units, as file managers show it: "96 kB", "4.2 MB". */
export const fileSize = (n: number): string =>
  n > 1e9 ? `${(n / 1e9).toFixed(1)} GB` : n > 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1e3))} kB`;

/** How far a run has got: "9 of 24 pages", "320 of 750 passages", "12 of 40 shots", "1:05 of 12:30" (a video's time decoded, looked at or heard). */
export function progressWords({ done, total, unit }: RunProgress): string {
  if (unit !== 'seconds') return `${Math.floor(done)} of ${counted(Math.round(total), unit.slice(0, -1))}`;
  const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  return `${clock(done)} of ${clock(total)}`;
}
