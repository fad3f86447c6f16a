// What the API layer keeps on each request.
import type { ParameterizedContext } from 'koa';
import type { AuthContext } from '../services/auth.service.ts';
import type { AppError } from '../errors.ts';

export interface AppState {
  requestId: string;
  startedAt: bigint;
  auth?: AuthContext;
  authError?: AppError;
}

export type AppContext = ParameterizedContext<AppState>;
