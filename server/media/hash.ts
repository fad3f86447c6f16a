import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';

/** SHA-256 (hex) and size of a file, streamed. */
export async function hashFile(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(fs.createReadStream(file), async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      hash.update(chunk);
      size += chunk.length;
    }
    yield* [];
  });
  return { sha256: hash.digest('hex'), size };
}

/** Files up to this size are read in one read, not streamed (a stream's machinery costs more than a small file's read). */
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
      for (let n = -1; got < size && n !== 0; got += n) n = (await fh.read(data, got, size - got, got)).bytesRead;
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
