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

/**
 * Identifier: a short type prefix and 20 base32 characters — the time in milliseconds (9), then 11
 * random (55 bits). Ids made one after the other sort together, so the indexes keyed by them grow
 * at one end instead of being written all over.
 */
export function newId(prefix: string): string {
  let out = '';
  let t = Date.now();
  for (let i = 0; i < 9; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  for (const b of random(11)) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}

export const clock = { now: (): number => Date.now() };

export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}
