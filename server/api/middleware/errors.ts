// Every error leaves in the SPEC 7 envelope. Named errors keep their code and message; anything
// else is logged once with the request id and answered as a masked 500.
import type { Middleware } from 'koa';
import { AppError, Errors } from '../../errors.ts';
import type { AppState } from '../context.ts';

function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const e = (err ?? {}) as { status?: number; type?: string };
  // Errors thrown by body parsers carry a type and an HTTP status of their own.
  if (e.type === 'entity.parse.failed' || (err instanceof SyntaxError && e.status === 400)) return Errors.malformedJson();
  if (e.type === 'entity.too.large') return new AppError('body_too_large', 413, 'The request body is too large.');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new AppError('unsupported_encoding', 415, 'Unsupported request body encoding.');
  }
  if (e.type === 'request.aborted') return new AppError('request_aborted', 400, 'The request was aborted.');
  // The disk is full (a file written, or SQLite growing its files), or the database is locked by
  // another program past the busy timeout: the request changed nothing (its transaction rolled back).
  const code = (err as { code?: unknown })?.code;
  if (code === 'ENOSPC' || code === 'SQLITE_FULL') return Errors.noSpace();
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'))) return Errors.databaseBusy();
  return null;
}

export function errorHandler(log: (msg: string) => void): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) throw Errors.routeNotFound(ctx.method, ctx.path);
      if (ctx.body === undefined && ctx.status === 405) {
        throw new AppError('method_not_allowed', 405, `${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (err) {
      let appError = toAppError(err);
      if (!appError) {
        log(`unexpected error in ${ctx.method} ${ctx.path} [${ctx.state.requestId}]: ${(err as Error)?.stack ?? err}`);
        appError = Errors.internal();
      }
      for (const [k, v] of Object.entries(appError.headers ?? {})) ctx.set(k, v);
      ctx.status = appError.status;
      ctx.body = {
        success: false,
        error: {
          code: appError.code,
          message: appError.message,
          status: appError.status,
          ...(appError.details ? { details: appError.details } : {}),
        },
      };
    }
  };
}
