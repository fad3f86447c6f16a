// The one way this code opens a zip container (Office, OpenDocument, EPUB), so that a zip bomb fails
// with `too_large` whoever reads it: the sizes the archive declares are summed before anything is
// inflated, and what an entry really inflates to is counted as it streams (a declared size may lie).
import fs from 'node:fs';
import JSZip from 'jszip';
import { limits } from '../config.ts';
import { ExtractError } from './types.ts';

export class Zip {
  private constructor(
    private readonly zip: JSZip,
    private readonly maxBytes: number,
  ) {}

  /** Opens `file`; `corrupt` when it is no zip, `too_large` when its entries declare more than the limit. */
  static async open(file: string, maxBytes = limits.maxUnzippedBytes): Promise<Zip> {
    let zip: JSZip;
    try {
      zip = await JSZip.loadAsync(await fs.promises.readFile(file));
    } catch (err) {
      throw new ExtractError('corrupt', `not a readable zip container (${(err as Error).message})`);
    }
    const opened = new Zip(zip, maxBytes);
    const total = opened.names().reduce((sum, name) => sum + (opened.declaredSize(name) ?? 0), 0);
    if (total > maxBytes) throw new ExtractError('too_large', `the archive inflates to ${total} bytes`);
    return opened;
  }

  /** Every file's name (folders left out). */
  names(): string[] {
    return Object.values(this.zip.files)
      .filter((e) => !e.dir)
      .map((e) => e.name);
  }

  has(name: string): boolean {
    return this.zip.file(name) !== null;
  }

  /** The size the archive's directory gives for an entry. JSZip keeps it in a field it does not export. */
  private declaredSize(name: string): number | null {
    const entry = this.zip.file(name) as (JSZip.JSZipObject & { _data?: { uncompressedSize?: number } }) | null;
    return entry?._data?.uncompressedSize ?? null;
  }

  /**
   * An entry's bytes, inflated at most to `cap` (default: the archive's limit) and to the size the
   * entry declares (one that inflates further lies, and stops there); `corrupt` when missing.
   */
  async bytes(name: string, cap = this.maxBytes): Promise<Buffer> {
    const chunks: Buffer[] = [];
    const size = await this.stream(name, (chunk) => void chunks.push(chunk), cap);
    return Buffer.concat(chunks, size);
  }

  /**
   * Streams an entry's bytes to `onChunk` as they inflate, within the same limits as `bytes`;
   * `onChunk` returning false stops the inflating there. Returns the bytes streamed.
   */
  stream(name: string, onChunk: (chunk: Buffer) => boolean | void, cap = this.maxBytes): Promise<number> {
    const limit = Math.min(cap, this.maxBytes);
    const declared = this.declaredSize(name);
    if (declared !== null && declared > limit) return Promise.reject(new ExtractError('too_large', `${name} inflates to ${declared} bytes`));
    return this.inflate(name, Math.min(limit, declared ?? limit), onChunk);
  }

  /** An entry as UTF-8 text (see `bytes`). */
  async text(name: string, cap?: number): Promise<string> {
    return (await this.bytes(name, cap)).toString('utf8');
  }

  /**
   * Streams an entry's inflated bytes to `onChunk`, failing `too_large` past `limit` and stopping
   * where `onChunk` returns false; returns the size streamed.
   */
  private inflate(name: string, limit: number, onChunk: (chunk: Buffer) => boolean | void): Promise<number> {
    const entry = this.zip.file(name);
    if (!entry) return Promise.reject(new ExtractError('corrupt', `${name} is missing`));
    return new Promise((resolve, reject) => {
      // JSZip's Node stream (readable-stream 2: events, no async iteration); pausing stops the inflating.
      const stream = entry.nodeStream('nodebuffer');
      let size = 0;
      const stop = () => {
        stream.pause();
        stream.removeAllListeners('data');
        stream.removeAllListeners('end');
      };
      stream
        .on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            stop();
            reject(new ExtractError('too_large', `${name} inflates past ${limit} bytes`));
          } else if (onChunk(chunk) === false) {
            stop();
            resolve(size);
          }
        })
        .on('error', (err: Error) => reject(new ExtractError('corrupt', `${name}: ${err.message}`)))
        .on('end', () => resolve(size));
    });
  }
}
