// Defends a service bound to loopback against other sites in the user's browser: the Host header
// must name this machine (stops DNS rebinding) and a browser Origin must be this same server.
import type { Middleware } from 'koa';
import { Errors } from '../../errors.ts';
import type { AppState } from '../context.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function hostnameOf(hostHeader: string): string | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(hostHeader.trim());
  return m ? m[1].toLowerCase() : null;
}

export function hostGuard(extraHosts: readonly string[]): Middleware<AppState> {
  const allowed = new Set([...LOOPBACK, ...extraHosts.map((h) => h.toLowerCase())]);
  return async (ctx, next) => {
    const host = ctx.get('Host');
    const name = host ? hostnameOf(host) : null;
    if (!name || !allowed.has(name)) {
      throw Errors.forbidden('The Host header does not name this machine; requests must be addressed to localhost.');
    }
    const origin = ctx.get('Origin');
    if (origin && origin !== `${ctx.protocol}://${host.toLowerCase()}`) {
      throw Errors.forbidden('Cross-origin requests are not accepted.');
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    await next();
  };
}
