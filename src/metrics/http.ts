// The HTTP side of metrics: a middleware counting and timing every request of a listener by its
// route template (a raw path can carry a state or an offer id), and the `GET /metrics` route.
import Router from '@koa/router';
import { performance } from 'node:perf_hooks';
import type { Context, Middleware, Next } from 'koa';
import { routeOf } from '../log.js';
import type { Listener, Metrics } from './metrics.js';

/** The label of requests no route matched (404, and 401 on the management listener, which authenticates before routing). */
export const NO_ROUTE = 'none';

/** Mount inside requestLog and outside problems(), so the status is the one sent. */
export const httpMetrics =
  (metrics: Metrics, listener: Listener): Middleware =>
  async (ctx: Context, next: Next) => {
    const started = performance.now();
    let status: number | undefined;
    try {
      await next();
      status = ctx.status;
    } finally {
      // Only an error problems() could not answer gets here without a status; Koa answers it 500.
      const labels = { listener, method: ctx.method, route: routeOf(ctx) ?? NO_ROUTE, status: String(status ?? 500) };
      metrics.http.requests.inc(labels);
      metrics.http.duration.observe(labels, (performance.now() - started) / 1000);
    }
  };

/** `GET /metrics`: mounted before authentication, like /health (see README, Metrics). */
export const metricsRouter = (metrics: Metrics): Router => {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    const { contentType, body } = await metrics.scrape();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  });
  return router;
};
