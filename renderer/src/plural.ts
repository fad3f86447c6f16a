// Numbers as a reader takes them: a count with its noun ("1 face", "3 faces"), a file's size.
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A file's size in decimal units, as file managers show it: "96 kB", "4.2 MB". */
export const fileSize = (n: number): string =>
  n > 1e9 ? `${(n / 1e9).toFixed(1)} GB` : n > 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1e3))} kB`;
