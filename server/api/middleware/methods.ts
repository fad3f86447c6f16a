// A path the API has, asked with a method it does not: 405 with `Allow`; OPTIONS: 204 with `Allow`.
// The methods are those of the most specific route template the path matches, so `/people/recluster`
// allows POST only, not the methods of `/people/{id}`. Runs after the router, for what it left.
import type { Middleware } from 'koa';
import { AppError } from '../../errors.ts';
import type { AppState } from '../context.ts';

interface Template {
  segments: string[];
  method: string;
}

/** The methods allowed on a path: those of the matching templates with the most literal segments. */
export function allowedMethods(templates: readonly Template[], path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  let best = -1;
  let methods = new Set<string>();
  for (const t of templates) {
    if (t.segments.length !== parts.length) continue;
    if (!t.segments.every((s, i) => s.startsWith(':') || s === parts[i])) continue;
    const literal = t.segments.filter((s) => !s.startsWith(':')).length;
    if (literal > best) {
      best = literal;
      methods = new Set();
    }
    if (literal === best) methods.add(t.method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

export function methodNotAllowed(prefix: string, routes: ReadonlyArray<{ method: string; path: string }>): Middleware<AppState> {
  const templates = routes.map((r) => ({ method: r.method, segments: `${prefix}${r.path}`.split('/').filter(Boolean) }));
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404 || !ctx.path.startsWith(`${prefix}/`)) return;
    const allow = allowedMethods(templates, ctx.path);
    if (allow.length === 0) return;
    ctx.set('Allow', allow.join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new AppError('method_not_allowed', 405, `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow.join(', ')}.`, {
      headers: { Allow: allow.join(', ') },
    });
  };
}
