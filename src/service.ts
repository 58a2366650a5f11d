// Composes the service: event store, projection runner, both listeners, bootstrap, features; and
// takes it apart again in the reverse order on shutdown. The listeners come up before the read
// models catch up, answering probes (live, not ready) and 503 to the rest, so that however long
// the catch-up takes, or however far behind a projection is, the process is seen to be alive.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allProjections } from '../projections/index.js';
import type { Config } from './config.js';
import { openEventStore, readModelsFile } from './eventstore/open.js';
import type { EventStore } from './eventstore/port.js';
import type { Feature, ServiceContext } from './feature.js';
import { healthRouter, managementApp, openManagementRouters, publicApp, routeTable, startingApp, type RouteEntry } from './http/apps.js';
import { openApiDocument } from './http/openapi/document.js';
import type { Logger } from './log.js';
import { instrumentedStore } from './metrics/instrumentedStore.js';
import { createMetrics } from './metrics/metrics.js';
import { observeProjectionLag } from './metrics/projectionLag.js';
import { ProjectionRunner } from './projection-runner.js';
import { projectionsCheck, quarantineCheck, readiness, storeCheck } from './readiness.js';
import { dataKeys } from './crypto/dataKeys.js';
import { loadKek } from './crypto/kek.js';
import { features as allFeatures } from './features.js';
import { bootstrapTenant } from './tenancy/bootstrap.js';

export interface Service {
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly context: ServiceContext;
  readonly managementUrl: string;
  readonly publicListenUrl: string;
  /** Every method and path each listener routes: for the robustness suite and the OpenAPI document's test. */
  readonly routes: { readonly management: readonly RouteEntry[]; readonly public: readonly RouteEntry[] };
  stop(): Promise<void>;
}

const listen = (server: Server, port: number, host: string): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shown}:${address.port}`);
    });
  });

/** Stops accepting, lets in-flight requests finish, and cuts what is left after `timeoutMs`. */
const closeServer = (server: Server, timeoutMs: number): Promise<void> =>
  new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });

export const startService = async (config: Config, log: Logger): Promise<Service> => {
  // First: a key-encryption key that cannot be had stops the start before anything is opened.
  const kek = await loadKek(config, log);
  const metrics = createMetrics(log);
  const store = instrumentedStore(await openEventStore(config), metrics);
  const runner = await ProjectionRunner.open({ store, file: readModelsFile(config), projections: allProjections, log });
  observeProjectionLag(metrics, store, runner, 'read_models');
  let features: readonly Feature[] = [];
  let started = false;
  const ready = readiness(
    () => [
      storeCheck(store),
      projectionsCheck(runner, store, config.readinessMaxLagMs),
      quarantineCheck(runner),
      { name: 'started', failure: async () => (started ? undefined : 'the service is starting') },
      ...features.flatMap((f) => f.readinessChecks ?? []),
    ],
    log,
  );
  type Handler = (request: IncomingMessage, response: ServerResponse) => void;
  let serveManagement: Handler = startingApp({ log, metrics, readiness: ready, listener: 'management' }).callback();
  let serveWallet: Handler = startingApp({ log, metrics, readiness: ready, listener: 'public' }).callback();
  const management = createServer((request, response) => serveManagement(request, response));
  const wallet = createServer((request, response) => serveWallet(request, response));
  let context: ServiceContext;
  let managementUrl: string;
  let publicListenUrl: string;
  let routes: Service['routes'];
  try {
    managementUrl = await listen(management, config.managementPort, config.managementHost);
    publicListenUrl = await listen(wallet, config.publicPort, config.publicHost);
    log.info('answering probes, catching up with the event store', { management: managementUrl, public: publicListenUrl });
    runner.start();
    // Authentication reads the read models: serve once they hold everything already recorded.
    await runner.whenCaughtUp();
    if (config.bootstrapApiKey) {
      await bootstrapTenant(store, runner, config.bootstrapApiKey, log, config.readYourWritesTimeoutMs);
    }
    context = { config, log, metrics, store, runner, kek, dataKeys: dataKeys(store, kek) };
    features = await allFeatures(context);
    const open = openManagementRouters({ metrics, readiness: ready, document: openApiDocument(config) });
    const managementRouters = features.flatMap((f) => f.managementRouters ?? []);
    const publicRouters = [healthRouter(ready), ...features.flatMap((f) => f.publicRouters ?? [])];
    routes = { management: routeTable([...open, ...managementRouters]), public: routeTable(publicRouters) };
    serveManagement = managementApp({ log, metrics, readModels: runner.db, open, routers: managementRouters }).callback();
    serveWallet = publicApp({ log, metrics, routers: publicRouters }).callback();
  } catch (err) {
    // A start that fails half-way leaves nothing open behind it.
    // Probes may hold connections open by now: they are cut, not waited for.
    await Promise.all([closeServer(management, 0), closeServer(wallet, 0)]);
    await runner.close();
    await store.close();
    throw err;
  }
  for (const feature of features) feature.start?.();
  started = true;
  log.info('listening', { management: managementUrl, public: publicListenUrl, publicUrl: config.publicUrl });

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await Promise.all([closeServer(management, config.shutdownTimeoutMs), closeServer(wallet, config.shutdownTimeoutMs)]);
      await Promise.all(features.map((f) => f.stop?.()));
      await runner.close();
      await store.close();
      log.info('stopped', {});
    })());
  return { store, runner, context, managementUrl, publicListenUrl, routes, stop };
};
