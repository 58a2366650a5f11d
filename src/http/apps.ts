// The two listeners' Koa apps. The management app authenticates every route but /health and
// /metrics before routing; the public app is what wallets reach. Feature routers are mounted by
// the service.
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../log.js';
import { requestLog } from '../log.js';
import { httpMetrics, metricsRouter } from '../metrics/http.js';
import type { Listener, Metrics } from '../metrics/metrics.js';
import { authenticate } from '../tenancy/authenticate.js';
import type { Sqlite } from '../sqlite.js';
import { allowedMethods, problems } from './problem.js';

const healthRouter = (): Router => {
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

const baseApp = (log: Logger, metrics: Metrics, listener: Listener): Koa => {
  const app = new Koa();
  app.proxy = false;
  // Errors are answered by `problems`; Koa's own handler would print them to stderr.
  app.silent = true;
  app.use(requestLog(log));
  app.use(httpMetrics(metrics, listener));
  app.use(problems({ logger: log }));
  return app;
};

export const managementApp = (deps: { log: Logger; metrics: Metrics; readModels: Sqlite; routers: readonly Router[] }): Koa => {
  const app = baseApp(deps.log, deps.metrics, 'management');
  mount(app, [healthRouter(), metricsRouter(deps.metrics)]);
  app.use(authenticate(deps.readModels));
  mount(app, deps.routers);
  return app;
};

export const publicApp = (deps: { log: Logger; metrics: Metrics; routers: readonly Router[] }): Koa => {
  const app = baseApp(deps.log, deps.metrics, 'public');
  mount(app, [healthRouter(), ...deps.routers]);
  return app;
};
