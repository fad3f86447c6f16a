// A count with its noun: "1 face", "3 faces".
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
