// The two listeners' Koa apps. The management app authenticates every route but /health and the
// OpenAPI document before routing; the public app is what wallets reach. Feature routers are
// mounted by the service.
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../log.js';
import { requestLog } from '../log.js';
import { authenticate } from '../tenancy/authenticate.js';
import type { Sqlite } from '../sqlite.js';
import { allowedMethods, problems } from './problem.js';
import { openApiRouter, type OpenApiDocument } from './openapi/document.js';

export const healthRouter = (): Router => {
  const router = new Router();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  return router;
};

/** One routed method and path template (`/drafts/:id`), as the routers define them. */
export interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

/** Every method and path the routers serve (HEAD, which Koa derives from GET, left out). */
export const routeTable = (routers: readonly Router[]): readonly RouteEntry[] =>
  routers.flatMap((router) =>
    router.stack.flatMap((layer) =>
      layer.methods.filter((method) => method !== 'HEAD').map((method) => ({ method, path: String(layer.path) })),
    ),
  );

const mount = (app: Koa, routers: readonly Router[]): void => {
  for (const router of routers) {
    app.use(router.routes());
    app.use(allowedMethods(router));
  }
};

const baseApp = (log: Logger): Koa => {
  const app = new Koa();
  app.proxy = false;
  // Errors are answered by `problems`; Koa's own handler would print them to stderr.
  app.silent = true;
  app.use(requestLog(log));
  app.use(problems({ logger: log }));
  return app;
};

/**
 * What the management listener serves without an API key: the health check, and the API
 * description, which is the same for every deployment and holds nothing of any tenant.
 */
export const openManagementRouters = (document: OpenApiDocument): readonly Router[] => [healthRouter(), openApiRouter(document)];

/** `open` routers answer anyone; `routers` only requests with a valid API key. */
export const managementApp = (deps: { log: Logger; readModels: Sqlite; open: readonly Router[]; routers: readonly Router[] }): Koa => {
  const app = baseApp(deps.log);
  mount(app, deps.open);
  app.use(authenticate(deps.readModels));
  mount(app, deps.routers);
  return app;
};

/** `routers` are every router of the listener, the health check's included. */
export const publicApp = (deps: { log: Logger; routers: readonly Router[] }): Koa => {
  const app = baseApp(deps.log);
  mount(app, deps.routers);
  return app;
};
