// Streams a file as a response, with byte ranges where asked (players seek with `Range: bytes=a-b`).
import fs from 'node:fs';
import type { AppContext } from './context.ts';
import { AppError, Errors } from '../errors.ts';

/** One `bytes=a-b` range (the form players send), clamped to the file; null without a Range header. */
export function byteRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!header || !m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/**
 * Sends the file (404 when it is gone); with `ranges`, answers 206 or 416 to a Range header. Its
 * ETag is its size and time written: a request that names it (If-None-Match) is answered 304.
 */
export async function sendFile(ctx: AppContext, file: string, type: string, opts: { ranges?: boolean } = {}): Promise<void> {
  let size: number;
  let etag: string;
  try {
    const st = await fs.promises.stat(file);
    size = st.size;
    etag = `"${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}"`;
  } catch {
    throw Errors.notFound('Frame');
  }
  ctx.type = type;
  ctx.set('ETag', etag);
  if (ctx.get('If-None-Match') === etag) {
    ctx.status = 304;
    return;
  }
  if (opts.ranges) {
    ctx.set('Accept-Ranges', 'bytes');
    const range = byteRange(ctx.get('Range'), size);
    if (range === 'unsatisfiable') {
      throw new AppError('range_not_satisfiable', 416, `The range asked for lies outside the file (${size} bytes).`, {
        headers: { 'Content-Range': `bytes */${size}` },
      });
    }
    if (range) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
      ctx.length = range.end - range.start + 1;
      ctx.body = fs.createReadStream(file, range);
      return;
    }
  }
  ctx.length = size;
  ctx.body = fs.createReadStream(file);
}
