// Fixed-window rate limit per API key (per client address for requests without a valid key).
// Every response carries X-RateLimit-Limit, -Remaining and -Reset (seconds until the window resets).
import type { Middleware } from 'koa';
import { Errors } from '../../errors.ts';
import type { AppState } from '../context.ts';

interface Window {
  start: number;
  count: number;
}

export function rateLimit(opts: { max: number; windowMs: number }, now: () => number = Date.now): Middleware<AppState> {
  const windows = new Map<string, Window>();
  let lastSweep = now();
  return async (ctx, next) => {
    const t = now();
    if (t - lastSweep > opts.windowMs) {
      for (const [k, w] of windows) if (t - w.start >= opts.windowMs) windows.delete(k);
      lastSweep = t;
    }
    const id = ctx.state.auth ? `key:${ctx.state.auth.keyId}` : `ip:${ctx.ip}`;
    let w = windows.get(id);
    if (!w || t - w.start >= opts.windowMs) {
      w = { start: t, count: 0 };
      windows.set(id, w);
    }
    w.count++;
    const resetS = Math.max(1, Math.ceil((w.start + opts.windowMs - t) / 1000));
    ctx.set('X-RateLimit-Limit', String(opts.max));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, opts.max - w.count)));
    ctx.set('X-RateLimit-Reset', String(resetS));
    if (w.count > opts.max) throw Errors.rateLimited(resetS);
    await next();
  };
}
