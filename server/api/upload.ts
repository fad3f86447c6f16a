// Multipart upload: the `file` part is streamed to a temp file under the data folder, hashed on
// the way, never held in memory. Limits are enforced while streaming.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multer from '@koa/multer';
import type { Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import { AppError, Errors } from '../errors.ts';
import { randomUUID } from 'node:crypto';
import type { UploadedFile } from '../services/assets.service.ts';
import type { AppState } from './context.ts';

type StoredInfo = { path: string; size: number; sha256: string };

class HashingDiskStorage implements multer.StorageEngine {
  constructor(private readonly dir: string) {}

  _handleFile(_req: IncomingMessage, file: multer.File, cb: (error?: unknown, info?: multer.File) => void): void {
    const target = path.join(this.dir, `upload_${randomUUID()}`);
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    pipeline((file as multer.File & { stream: NodeJS.ReadableStream }).stream, tap, fs.createWriteStream(target, { flags: 'wx', mode: 0o600 })).then(
      // multer's callback types a full File; a storage engine gives only what it adds (path, size, and our hash).
      () => cb(null, { path: target, size, sha256: hash.digest('hex') } as StoredInfo as unknown as multer.File),
      (err) => fs.rm(target, { force: true }, () => cb(err)),
    );
  }

  _removeFile(_req: IncomingMessage, file: multer.File, cb: (error: Error) => void): void {
    fs.rm(file.path, { force: true }, (err) => cb(err as Error));
  }
}

export function uploadMiddleware(tmpDir: string, maxBytes: number): Middleware<AppState> {
  const single = multer({
    storage: new HashingDiskStorage(tmpDir),
    limits: { fileSize: maxBytes, files: 1, fields: 8, fieldSize: 64 * 1024, parts: 10 },
  }).single('file');
  return async (ctx, next) => {
    try {
      // @koa/multer's middleware is typed for Koa 2's context; it runs unchanged on Koa 3's.
      await (single as unknown as Middleware<AppState>)(ctx, async () => {});
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'LIMIT_FILE_SIZE') throw Errors.fileTooLarge(maxBytes);
      if (typeof code === 'string' && code.startsWith('LIMIT_')) {
        throw Errors.invalidRequest([{ path: (err as { field?: string }).field ?? 'body', message: (err as Error).message }]);
      }
      // System errors (disk full, permissions) are the server's; anything else the parser throws is
      // about the body the client sent.
      if (err instanceof AppError || (typeof code === 'string' && /^E[A-Z]+$/.test(code))) throw err;
      throw new AppError('invalid_request', 422, `Malformed multipart body: ${(err as Error).message}`);
    }
    await next();
  };
}

export function uploadedFile(ctx: { file?: unknown }): UploadedFile | undefined {
  const f = ctx.file as (multer.File & { sha256?: string }) | undefined;
  if (!f) return undefined;
  return { tmpPath: f.path, originalName: f.originalname, sizeBytes: f.size, sha256: f.sha256 as string };
}
