// Composes the service: event store, read models, both listeners, bootstrap, features; and takes
// it apart again in the reverse order on shutdown. The listeners come up before the read models
// catch up, answering probes (live, not ready) and 503 to the rest, so that however long the
// catch-up takes, or however far behind a projection is, the process is seen to be alive.
//
// One process does all of it (WORKERS=1: `startService`). With WORKERS > 1 (src/workers/) the
// work is split: the primary keeps the read models and runs the background work without
// listening (`startService` with `serve: false`); each worker serves both listeners, reading the
// read models the primary keeps (`startWorkerService`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allProjections } from '../../projections/index.js';
import type { Config } from '../config/config.js';
import { openEventStore, readModelsFile } from '../eventstore/open.js';
import type { EventStore } from '../eventstore/port.js';
import type { Feature, ServiceContext } from '../featureContract.js';
import { healthRouter, managementApp, openManagementRouters, publicApp, routeTable, startingApp, type RouteEntry } from './apps.js';
import { openApiDocument } from './openapiDocument.js';
import type { Logger } from '../log.js';
import { instrumentedStore } from '../metrics/instrumentedStore.js';
import { createMetrics, type Metrics, type MetricsOptions } from '../metrics/metrics.js';
import { observeProjectionLag } from '../metrics/projectionLag.js';
import { ProjectionRunner } from '../readside/projectionRunner.js';
import type { ReadModels } from '../readside/readModels.js';
import { projectionsCheck, quarantineCheck, readiness, storeCheck } from '../readiness.js';
import { dataKeys } from '../crypto/dataKeys.js';
import { openKeyStore } from './keyStore.js';
import { features as allFeatures, type TenantIdentityPorts } from './features.js';
import { bootstrapTenant } from '../tenancy/bootstrap.js';
import { tenantSigningKeys } from '../tenantIdentity/signingKeys.js';
import { verifierRegistrationsOf } from '../tenantIdentity/verifierRegistrations.js';
import { tenantSettingsOf } from '../tenantIdentity/settings.js';

export interface Service<R extends ReadModels = ProjectionRunner> {
  readonly store: EventStore;
  readonly runner: R;
  readonly context: ServiceContext;
  /** Empty in a primary over workers, which does not listen. */
  readonly managementUrl: string;
  readonly publicListenUrl: string;
  /** Every method and path each listener routes: for the robustness suite and the OpenAPI document's test. */
  readonly routes: { readonly management: readonly RouteEntry[]; readonly public: readonly RouteEntry[] };
  stop(): Promise<void>;
}

/** Where both listeners answer. */
export interface ListenUrls {
  readonly management: string;
  readonly public: string;
}

/** Read models this process can close. */
type Closable = ReadModels & { close(): Promise<void> };

/** What one process of the service does (see the top of this file). */
interface Role<R extends Closable> {
  /** Opens the read models once the store is open. */
  readonly open: (store: EventStore) => Promise<R>;
  /** Brings the read models up to date and does the first-start work; features are built after it. */
  readonly prepare: (readModels: R, store: EventStore) => Promise<void>;
  /** Runs the features' background work (Feature.start). */
  readonly background: boolean;
  /** Serves both listeners; `early`: from before `prepare`, answering probes and 503 until started. */
  readonly serve: { readonly early: boolean; readonly listening: (urls: ListenUrls) => void } | undefined;
  /** The store as this process's features use it. */
  readonly store?: (store: EventStore) => EventStore;
  readonly metrics?: MetricsOptions;
  /** Replace the service's tenant identity ports (`TenantIdentityPorts`). */
  readonly tenantIdentity?: TenantIdentityPorts;
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
    if (!server.listening) return resolve();
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });

const compose = async <R extends Closable>(config: Config, log: Logger, role: Role<R>): Promise<Service<R>> => {
  // First: keys that cannot be had (a KEK, a token) stop the start before anything is opened.
  const keys = await openKeyStore(config, log);
  const metrics: Metrics = createMetrics(log, role.metrics);
  const opened = await openEventStore(config).catch((err: unknown) => {
    keys.close();
    throw err;
  });
  const instrumented = instrumentedStore(opened, metrics);
  const store = role.store?.(instrumented) ?? instrumented;
  const runner = await role.open(store).catch(async (err: unknown) => {
    await store.close();
    keys.close();
    throw err;
  });
  // Where the read models are kept: a worker's scrape gets the primary's figure (src/workers/metrics.ts).
  if (role.background) observeProjectionLag(metrics, store, runner, 'read_models');
  let features: readonly Feature[] = [];
  let started = false;
  const ready = readiness(
    () => [
      storeCheck(store),
      projectionsCheck(runner, store, config.readinessMaxLagMs),
      quarantineCheck(runner),
      { name: 'started', failure: async () => (started ? undefined : 'the service is starting') },
      ...(keys.readinessCheck ? [keys.readinessCheck] : []),
      ...features.flatMap((f) => f.readinessChecks ?? []),
    ],
    log,
  );
  type Handler = (request: IncomingMessage, response: ServerResponse) => void;
  let serveManagement: Handler = startingApp({ log, metrics, readiness: ready, listener: 'management' }).callback();
  let serveWallet: Handler = startingApp({ log, metrics, readiness: ready, listener: 'public' }).callback();
  const management = createServer((request, response) => serveManagement(request, response));
  const wallet = createServer((request, response) => serveWallet(request, response));
  const urls = { management: '', public: '' };
  const listenBoth = async (): Promise<void> => {
    urls.management = await listen(management, config.managementPort, config.managementHost);
    urls.public = await listen(wallet, config.publicPort, config.publicHost);
  };
  let context: ServiceContext;
  let routes: Service['routes'];
  try {
    if (role.serve?.early) {
      await listenBoth();
      log.info('answering probes, catching up with the event store', urls);
    }
    await role.prepare(runner, store);
    const serviceDataKeys = dataKeys(store, keys.kek);
    context = {
      config, log, metrics, store, runner, keys, kek: keys.derivationRoot, dataKeys: serviceDataKeys,
      tenantKeys: role.tenantIdentity?.tenantKeys ?? tenantSigningKeys({ store, runner, keys, dataKeys: serviceDataKeys }),
      verifierRegistrations: role.tenantIdentity?.verifierRegistrations ?? verifierRegistrationsOf(() => runner.db),
      tenantSettings: tenantSettingsOf(() => runner.db, config),
    };
    features = await allFeatures(context, role.tenantIdentity);
    const open = openManagementRouters({ metrics, readiness: ready, document: openApiDocument(config) });
    const managementRouters = features.flatMap((f) => f.managementRouters ?? []);
    const publicRouters = [healthRouter(ready), ...features.flatMap((f) => f.publicRouters ?? [])];
    routes = { management: routeTable([...open, ...managementRouters]), public: routeTable(publicRouters) };
    serveManagement = managementApp({ log, metrics, readModels: runner.db, open, routers: managementRouters }).callback();
    serveWallet = publicApp({ log, metrics, routers: publicRouters }).callback();
    if (role.serve && !role.serve.early) await listenBoth();
  } catch (err) {
    // A start that fails half-way leaves nothing open behind it.
    // Probes may hold connections open by now: they are cut, not waited for.
    await Promise.all([closeServer(management, 0), closeServer(wallet, 0)]);
    await runner.close();
    await store.close();
    keys.close();
    throw err;
  }
  for (const feature of features) {
    if (role.background) feature.start?.();
    if (role.serve) feature.startServing?.();
  }
  started = true;
  role.serve?.listening(urls);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await Promise.all([closeServer(management, config.shutdownTimeoutMs), closeServer(wallet, config.shutdownTimeoutMs)]);
      await Promise.all(features.map((f) => f.stop?.()));
      await runner.close();
      await store.close();
      keys.close();
      log.info('stopped', {});
    })());
  return { store, runner, context, managementUrl: urls.management, publicListenUrl: urls.public, routes, stop };
};

/** Told of the read models and the store once both are open, before catching up. */
type Opened = (runner: ProjectionRunner, store: EventStore) => void;

/** Keeps the read models: catches up, then creates the bootstrap tenant on a first start. */
const projecting = (config: Config, log: Logger, opened?: Opened) => ({
  open: async (store: EventStore) => {
    const runner = ProjectionRunner.open({ store, file: readModelsFile(config), projections: allProjections, log });
    opened?.(runner, store);
    return runner;
  },
  prepare: async (runner: ProjectionRunner, store: EventStore) => {
    runner.start();
    // Authentication reads the read models: serve once they hold everything already recorded.
    await runner.whenCaughtUp();
    if (config.bootstrapApiKey) await bootstrapTenant(store, runner, config.bootstrapApiKey, log, config.readYourWritesTimeoutMs);
  },
});

/**
 * The service in this process: all of it, or (`serve: false`) all but the listeners, for the
 * primary over workers; `opened` is told of the read models before they catch up.
 */
export const startService = (
  config: Config,
  log: Logger,
  options: { readonly serve?: false; readonly opened?: Opened; readonly tenantIdentity?: TenantIdentityPorts } = {},
): Promise<Service> =>
  compose(config, log, {
    ...projecting(config, log, options.opened),
    ...(options.tenantIdentity ? { tenantIdentity: options.tenantIdentity } : {}),
    background: true,
    serve:
      options.serve === false
        ? undefined
        : { early: true, listening: (urls) => log.info('listening', { ...urls, publicUrl: config.publicUrl }) },
  });

/** How a worker reads what the primary keeps and tells it what it does. */
export interface Following<R extends Closable> {
  /** The primary's read models, opened on the store; `prepare` resolves once the primary has started. */
  readonly open: (store: EventStore) => Promise<R>;
  readonly prepare: (readModels: R) => Promise<void>;
  /** Listen from the start, answering probes while the primary starts (false: once ready to serve). */
  readonly early: boolean;
  readonly store: (store: EventStore) => EventStore;
  readonly listening: (urls: ListenUrls) => void;
  readonly metrics: MetricsOptions;
}

/** A worker: both listeners and the features' routes, over read models another process keeps. */
export const startWorkerService = <R extends Closable>(config: Config, log: Logger, following: Following<R>): Promise<Service<R>> =>
  compose(config, log, {
    open: following.open,
    prepare: (readModels) => following.prepare(readModels),
    background: false,
    serve: { early: following.early, listening: following.listening },
    store: following.store,
    metrics: following.metrics,
  });
