// Composes the service: event store, projection runner, bootstrap, both listeners; and takes
// it apart again in the reverse order on shutdown.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allProjections } from '../projections/index.js';
import type { Config } from './config.js';
import { openEventStore, readModelsFile } from './eventstore/open.js';
import type { EventStore } from './eventstore/port.js';
import type { Feature, ServiceContext } from './feature.js';
import { healthRouter, managementApp, openManagementRouters, publicApp, routeTable, type RouteEntry } from './http/apps.js';
import { openApiDocument } from './http/openapi/document.js';
import type { Logger } from './log.js';
import { ProjectionRunner } from './projection-runner.js';
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
  const store = await openEventStore(config);
  const runner = await ProjectionRunner.open({ store, file: readModelsFile(config), projections: allProjections, log });
  const management = createServer();
  const wallet = createServer();
  let features: readonly Feature[] = [];
  let context: ServiceContext;
  let managementUrl: string;
  let publicListenUrl: string;
  let routes: Service['routes'];
  try {
    runner.start();
    // Authentication reads the read models: serve once they hold everything already recorded.
    await runner.whenCaughtUp();
    if (config.bootstrapApiKey) {
      await bootstrapTenant(store, runner, config.bootstrapApiKey, log, config.readYourWritesTimeoutMs);
    }
    context = { config, log, store, runner, dataKeys: dataKeys(store, await loadKek(config)) };
    features = await allFeatures(context);
    const open = openManagementRouters(openApiDocument(config));
    const managementRouters = features.flatMap((f) => f.managementRouters ?? []);
    const publicRouters = [healthRouter(), ...features.flatMap((f) => f.publicRouters ?? [])];
    routes = { management: routeTable([...open, ...managementRouters]), public: routeTable(publicRouters) };
    management.on('request', managementApp({ log, readModels: runner.db, open, routers: managementRouters }).callback());
    wallet.on('request', publicApp({ log, routers: publicRouters }).callback());
    managementUrl = await listen(management, config.managementPort, config.managementHost);
    publicListenUrl = await listen(wallet, config.publicPort, config.publicHost);
  } catch (err) {
    // A start that fails half-way leaves nothing open behind it.
    management.close();
    wallet.close();
    await runner.close();
    await store.close();
    throw err;
  }
  for (const feature of features) feature.start?.();
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
