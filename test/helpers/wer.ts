// Word error rate of a transcript against the truth, after the normalisation speech-to-text
// evaluations use (case, punctuation, hyphens, spelled-out numbers, "Mr." as said).

const SMALL = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SAID: Record<string, string> = { mr: 'mister', mrs: 'missus', dr: 'doctor', st: 'saint' };

function spelled(n: number): string {
  if (n < 20) return SMALL[n];
  if (n < 100) return `${TENS[Math.floor(n / 10)]}${n % 10 ? ` ${SMALL[n % 10]}` : ''}`;
  if (n < 1000) return `${SMALL[Math.floor(n / 100)]} hundred${n % 100 ? ` ${spelled(n % 100)}` : ''}`;
  return String(n);
}

/** Lower case, numbers spelled out, hyphens and punctuation gone: the words as a list. */
export function normalizedWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\d+/g, (d) => ` ${spelled(Number(d))} `)
    .replace(/[-–—]/g, ' ')
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .replace(/'(?!\p{L})|(?<!\p{L})'/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => SAID[w] ?? w);
}

/** Substitutions, deletions and insertions (word-level edit distance) between two word lists. */
export function wordErrors(truth: string[], heard: string[]): number {
  let prev = Array.from({ length: heard.length + 1 }, (_, j) => j);
  for (let i = 1; i <= truth.length; i++) {
    const row = [i];
    for (let j = 1; j <= heard.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (truth[i - 1] === heard[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[heard.length];
}

/** The word error rate over several pairs: all errors over all words of the truth. */
export function wordErrorRate(pairs: Array<{ truth: string; heard: string }>): number {
  let errors = 0;
  let words = 0;
  for (const p of pairs) {
    const truth = normalizedWords(p.truth);
    errors += wordErrors(truth, normalizedWords(p.heard));
    words += truth.length;
  }
  return words ? errors / words : 0;
}
