import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';

export const requestId: Middleware<AppState> = async (ctx, next) => {
  ctx.state.startedAt = process.hrtime.bigint();
  const given = ctx.get('X-Request-Id');
  ctx.state.requestId = /^[\w.-]{8,64}$/.test(given) ? given : `req_${randomUUID()}`;
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
};

export function timingMs(state: AppState): number {
  return Math.round(Number(process.hrtime.bigint() - state.startedAt) / 1e4) / 100;
}
