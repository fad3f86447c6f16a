import fs from 'node:fs';
import { createHash } from 'node:crypto';

/** SHA-256 (hex) and size of a file. */
export async function hashFile(file: string): Promise<{ sha256: string; size: number }> {
  const { sha256, size } = await hashWithHead(file, 0);
  return { sha256, size };
}

/** Files up to this size are read whole in one read; larger ones are streamed. */
const ONE_READ_BYTES = 2 ** 20;

/**
 * SHA-256 (hex), size and first `headBytes` bytes of a file (its type is told from them), from one
 * opening of it: a small file read whole, a larger one streamed.
 */
export async function hashWithHead(file: string, headBytes: number): Promise<{ sha256: string; size: number; head: Buffer }> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const { size } = await fh.stat();
    if (size <= ONE_READ_BYTES) {
      const data = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const { bytesRead } = await fh.read(data, got, size - got, got);
        if (bytesRead === 0) break; // shorter than it was a moment ago
        got += bytesRead;
      }
      const whole = data.subarray(0, got);
      return { sha256: createHash('sha256').update(whole).digest('hex'), size: got, head: Buffer.from(whole.subarray(0, headBytes)) };
    }
    const hash = createHash('sha256');
    let read = 0;
    const head: Buffer[] = [];
    for await (const chunk of fh.createReadStream({ start: 0, autoClose: false }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      if (read < headBytes) head.push(chunk.subarray(0, headBytes - read));
      read += chunk.length;
    }
    return { sha256: hash.digest('hex'), size: read, head: Buffer.concat(head) };
  } finally {
    await fh.close();
  }
}
