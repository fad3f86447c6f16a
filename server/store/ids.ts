import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

let pool = Buffer.alloc(0);
let used = 0;

function random(n: number): Buffer {
  if (used + n > pool.length) {
    pool = randomBytes(4096);
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}

/** The time and random digits of the last id made: ids made in one millisecond count up from it. */
let lastMs = -1;
const digits = new Uint8Array(11);

/**
 * Identifier: a short type prefix and 20 base32 characters — the time in milliseconds (9), then 11
 * random (55 bits). Ids made one after the other sort together, so the indexes keyed by them grow
 * at one end instead of being written all over; ids made in the same millisecond count up from the
 * first one's random part, so they sort in the order they were made (the queue hands out the files
 * of one `index` or scan in the order they were admitted, not in a random order within each millisecond).
 */
export function newId(prefix: string): string {
  const now = Date.now();
  let carry = now === lastMs;
  // One more than the last id's random part: the last digit up by one, carried leftwards.
  for (let i = digits.length - 1; carry && i >= 0; i--) {
    digits[i] = (digits[i] + 1) & 31;
    carry = digits[i] === 0;
  }
  // A new millisecond (or, never in practice, 2^55 ids in one): new random digits.
  if (now !== lastMs || carry) {
    random(11).forEach((b, i) => (digits[i] = b & 31));
    lastMs = now;
  }
  let out = '';
  let t = now;
  for (let i = 0; i < 9; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  for (const d of digits) out += ALPHABET[d];
  return `${prefix}_${out}`;
}

export const clock = { now: (): number => Date.now() };

export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}
