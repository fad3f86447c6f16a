// A count with its noun, as the command line writes it: "1 file", "6 files".
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
