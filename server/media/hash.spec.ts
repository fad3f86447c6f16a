import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { hashFile, hashWithHead } from './hash.ts';

describe('hashWithHead', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-hash-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, data: Buffer) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, data);
    return p;
  };

  it.each([
    ['empty', 0],
    ['smaller than its head', 1000],
    ['read in one read', 700_000],
    ['streamed', 3 * 2 ** 20 + 17],
  ])('gives the checksum, size, first bytes and modification time of a file (%s)', async (_, bytes) => {
    const data = randomBytes(bytes);
    const p = file(`f${bytes}`, data);
    const when = new Date('2021-06-05T04:03:02.5Z');
    fs.utimesSync(p, when, when);
    const r = await hashWithHead(p, 64 * 1024);
    expect(r.mtimeMs).toBe(when.getTime());
    expect(r.size).toBe(bytes);
    expect(r.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect(r.sha256).toBe((await hashFile(p)).sha256);
    expect(r.head.equals(data.subarray(0, 64 * 1024))).toBe(true);
  });

  it('refuses a file that is not there', async () => {
    await expect(hashWithHead(path.join(dir, 'none'), 16)).rejects.toThrow(/ENOENT/);
  });
});
