// The two listeners' Koa apps. The management app authenticates every route but its open ones
// (health, /metrics, the OpenAPI document) before routing; the public app is what wallets reach.
// Feature routers are mounted by the service; until they are, both listeners serve the starting app.
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../log.js';
import { requestLog } from '../log.js';
import { httpMetrics, metricsRouter } from '../metrics/http.js';
import type { Listener, Metrics } from '../metrics/metrics.js';
import type { Readiness } from '../readiness.js';
import { authenticate } from '../tenancy/authenticate.js';
import type { Sqlite } from '../sqlite/connection.js';
import { allowedMethods, HttpError, problems, serviceUnavailable } from '../http/problem.js';
import { openApiRouter, type OpenApiDocument } from './openapiDocument.js';
import { consoleStaticRouter } from '../console/staticFiles.js';

/**
 * `/health` (kept as it always was), `/health/live` (the process answers) and `/health/ready`
 * (whether to send it traffic: 503 naming each failing check).
 */
export const healthRouter = (readiness: () => Promise<Readiness>): Router => {
  const router = new Router();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health/live', (ctx) => {
    ctx.body = { status: 'live' };
  });
  router.get('/health/ready', async (ctx) => {
    const { ready, checks } = await readiness();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
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

interface AppDeps {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly readiness: () => Promise<Readiness>;
}

/**
 * What the management listener serves without an API key: the health routes, the metrics, the
 * API description, which is the same for every deployment and holds nothing of any tenant, and
 * the console's static files (which ask for a key before they show anything).
 */
export const openManagementRouters = (deps: Omit<AppDeps, 'log'> & { document: OpenApiDocument }): readonly Router[] => [
  healthRouter(deps.readiness),
  metricsRouter(deps.metrics),
  openApiRouter(deps.document),
  consoleStaticRouter(),
];

/** `open` routers answer anyone; `routers` only requests with a valid API key. */
export const managementApp = (deps: Omit<AppDeps, 'readiness'> & { readModels: Sqlite; open: readonly Router[]; routers: readonly Router[] }): Koa => {
  const app = baseApp(deps.log, deps.metrics, 'management');
  mount(app, deps.open);
  app.use(authenticate(deps.readModels));
  mount(app, deps.routers);
  return app;
};

/** `routers` are every router of the listener, the health routes' included. */
export const publicApp = (deps: Omit<AppDeps, 'readiness'> & { routers: readonly Router[] }): Koa => {
  const app = baseApp(deps.log, deps.metrics, 'public');
  mount(app, deps.routers);
  return app;
};

/** A listener while the read models catch up and the features start: probes, and 503 for the rest. */
export const startingApp = (deps: AppDeps & { listener: Listener }): Koa => {
  const app = baseApp(deps.log, deps.metrics, deps.listener);
  mount(app, [healthRouter(deps.readiness)]);
  app.use(() => {
    throw new HttpError(serviceUnavailable('The service is starting; retry shortly.'), { 'Retry-After': '1' });
  });
  return app;
};
