// The desktop UI (renderer/, built by Vite into dist/renderer) served at `/` when headless: the same
// files the Electron shell loads. Paths under /api are never answered here; a path that names no
// file gets index.html (the app routes itself). The page may talk only to this server.
import fs from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import serve from 'koa-static';
import type { AppState } from '../context.ts';

const CSP = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

export function serveUi(dist: string): Middleware<AppState> {
  const files = serve(dist, { index: 'index.html', maxage: 0, gzip: false, brotli: false });
  return async (ctx, next) => {
    if (ctx.path.startsWith('/api/') || ctx.path === '/api' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Frame-Options', 'DENY');
    await files(ctx, async () => {});
    if (ctx.body !== undefined) return;
    const index = path.join(dist, 'index.html');
    if (!fs.existsSync(index)) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'The app is not built here: run `npm run build`, or use the API under /api/v1.\n';
      return;
    }
    // An app route (/library, /people/…): the app itself.
    if (!path.extname(ctx.path)) {
      ctx.type = 'html';
      ctx.body = fs.createReadStream(index);
      return;
    }
    await next();
  };
}
