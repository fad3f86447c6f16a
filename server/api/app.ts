// The Koa application (no listen): middleware in order, then every resource's routes under /api/v1.
import { collectionRoutes } from './collections/routes.ts';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { AppState } from './context.ts';
import type { Services } from '../services/index.ts';
import { mountRoutes, type AnyRouteSpec } from './route.ts';
import { requestId } from './middleware/request-id.ts';
import { errorHandler } from './middleware/errors.ts';
import { hostGuard } from './middleware/host-guard.ts';
import { authenticate } from './middleware/auth.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { methodNotAllowed } from './middleware/methods.ts';
import { videoRoutes } from './videos/routes.ts';
import { indexOptionsRoutes } from './index-options/routes.ts';
import { engineRoutes } from './engines/routes.ts';
import { systemRoutes } from './system/routes.ts';
import { searchRoutes } from './search/routes.ts';
import { modelRoutes } from './models/routes.ts';
import { peopleRoutes } from './people/routes.ts';
import { answerRoutes } from './answers/routes.ts';
import { workspaceRoutes } from './workspaces/routes.ts';
import { serveUi } from './ui/static.ts';
import { keyRoutes } from './keys/routes.ts';
import { libraryRoutes } from './libraries/routes.ts';

export const API_PREFIX = '/api/v1';

export function apiRoutes(s: Services): AnyRouteSpec[] {
  const routes: AnyRouteSpec[] = [];
  routes.push(
    ...systemRoutes(s, () => routes),
    ...videoRoutes(s),
    ...indexOptionsRoutes(s),
    ...engineRoutes(s),
    ...searchRoutes(s),
    ...modelRoutes(s),
    ...peopleRoutes(s),
    ...answerRoutes(s),
    ...workspaceRoutes(s),
    ...keyRoutes(s),
    ...libraryRoutes(s),
    ...collectionRoutes(s),
  );
  return routes;
}

export function createApp(s: Services): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;
  const router = new Router<AppState>({ prefix: API_PREFIX });
  const routes = apiRoutes(s);
  mountRoutes(router, routes);

  app.use(requestId);
  app.use(errorHandler(s.log));
  app.use(hostGuard(s.config.allowedHosts));
  app.use(authenticate(s.auth, s.workspaces));
  app.use(rateLimit(s.config.rateLimit));
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '1mb',
      encoding: 'utf-8',
      // Parse any JSON body, also `null` or a bare value, so the contract decides what is valid.
      jsonStrict: false,
    }),
  );
  app.use(methodNotAllowed(API_PREFIX, routes));
  app.use(router.routes());
  app.use(serveUi(s.config.uiDir));
  return app;
}
