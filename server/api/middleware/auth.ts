// Resolves the API key (X-API-Key or Authorization: Bearer) without failing yet: the rate limiter
// needs to know who is calling, and public routes need no key. Routes enforce access themselves.
import type { Middleware } from 'koa';
import { AppError } from '../../errors.ts';
import type { AuthService } from '../../services/auth.service.ts';
import type { WorkspacesService } from '../../services/workspaces.service.ts';
import type { AppState } from '../context.ts';

export function presentedKey(headers: { get(name: string): string }): string | undefined {
  const header = headers.get('X-API-Key');
  if (header) return header;
  const authz = headers.get('Authorization');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
  return m ? m[1] : undefined;
}

export function authenticate(auth: AuthService, workspaces: WorkspacesService): Middleware<AppState> {
  return async (ctx, next) => {
    const key = presentedKey(ctx);
    if (key !== undefined) {
      try {
        ctx.state.auth = auth.verify(key);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        ctx.state.authError = err;
      }
    }
    // X-Workspace-Id: resolved here (id or name, within the key's reach); routes apply it (route.ts).
    const named = ctx.get('X-Workspace-Id').trim();
    if (named && ctx.state.auth) {
      try {
        [ctx.state.workspaceId] = workspaces.resolve(ctx.state.auth, [named]);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        ctx.state.workspaceError = err;
      }
    }
    await next();
  };
}
