// What the API layer keeps on each request.
import type { ParameterizedContext } from 'koa';
import type { AuthContext } from '../contract/auth.ts';
import type { AppError } from '../errors.ts';

export interface AppState {
  requestId: string;
  startedAt: bigint;
  auth?: AuthContext;
  authError?: AppError;
  /** The workspace X-Workspace-Id names, resolved; or why it may not be used. */
  workspaceId?: string;
  workspaceError?: AppError;
}

export type AppContext = ParameterizedContext<AppState>;

/** This server as the client addressed it (the Host header is checked by the host guard). */
export function originOf(ctx: { protocol: string; get(name: string): string }): string {
  return `${ctx.protocol}://${ctx.get('Host')}`;
}
