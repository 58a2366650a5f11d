// The callbacks feature: the recorder (terminal events -> delivery streams) and the deliverer
// (due deliveries -> signed POSTs), started with the service and stopped before the stores close.
// CALLBACK_URL and CALLBACK_SECRET configure the bootstrap tenant's settings at start.
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { countPendingDeliveries, lastRecordedSource } from '../../projections/deliveries.js';
import { START } from '../eventstore/port.js';
import type { Feature, ServiceContext } from '../featureContract.js';
import { startPeriodic, type Periodic } from '../periodic.js';
import { BOOTSTRAP_TENANT_ID } from '../tenancy/bootstrap.js';
import { didcommSender } from '../didcomm/deliver.js';
import { createEgress } from '../egress/egress.js';
import { Deliverer } from './deliver.js';
import { DeliveryRecorder, recordDelivery } from './record.js';
import { configureTenantCallback } from './tenantCallback.js';

/** How often due deliveries (retries, lapsed claims, re-sends) are looked for. */
export const SCAN_INTERVAL_MS = 250;

const applyBootstrapCallback = async (context: CallbacksPorts, kek: Buffer): Promise<void> => {
  const { callbackUrl: url, callbackSecret: secret } = context.config;
  if (url === undefined && secret === undefined) return;
  if (url === undefined || secret === undefined) throw new Error('CALLBACK_URL and CALLBACK_SECRET must be set together');
  const configured = await configureTenantCallback(context.store, kek, { tenantId: BOOTSTRAP_TENANT_ID, url, secret }, { actor: 'bootstrap' });
  if (isLeft(configured)) {
    throw new Error(
      configured.left._tag === 'TenantNotFound'
        ? 'CALLBACK_URL configures the bootstrap tenant, which does not exist: set BOOTSTRAP_API_KEY'
        : `bootstrap callback configuration: ${configured.left._tag}`,
    );
  }
  if (configured.right.position) {
    await context.runner.waitFor(configured.right.position, context.config.readYourWritesTimeoutMs);
    context.log.info('bootstrap tenant callback configured', { tenantId: BOOTSTRAP_TENANT_ID });
  }
};

/** The ports the feature uses: `kek` is the derivation root of the tenants' callback secrets and DIDComm keys. */
export type CallbacksPorts = Pick<ServiceContext, 'config' | 'log' | 'metrics' | 'store' | 'runner' | 'dataKeys' | 'kek' | 'tenantSettings'>;

export const callbacksFeature = async (context: CallbacksPorts, options: { now?: () => Date } = {}): Promise<Feature> => {
  const { store, log, config, kek } = context;
  const now = options.now ?? (() => new Date());
  await applyBootstrapCallback(context, kek);
  const deliverer = new Deliverer({
    store,
    db: context.runner.db,
    dataKeys: context.dataKeys,
    kek,
    schedule: config.callbackRetrySchedule,
    timeoutMs: config.callbackTimeoutSeconds * 1000,
    maxInFlight: config.callbackMaxInFlight,
    instanceId: randomUUID(),
    log: log.child({ component: 'callbacks' }),
    metrics: context.metrics.callbacks,
    now,
    sendDidcomm: didcommSender({
      store,
      dataKeys: context.dataKeys,
      kek,
      egress: createEgress({ allowPrivateNetworks: config.egressAllowPrivateNetworks }),
      timeoutMs: config.callbackTimeoutSeconds * 1000,
      now,
    }),
    settings: context.tenantSettings,
  });
  const { pending } = context.metrics.callbacks;
  context.metrics.refreshOnScrape(
    'pending callback deliveries',
    () => pending.set(countPendingDeliveries(context.runner.db)),
    () => pending.set(Number.NaN),
  );
  const recorder = new DeliveryRecorder({
    store,
    log,
    now,
    onCallback: async (recorded, callback) => {
      const at = now();
      const claim = deliverer.claimIfFree(at);
      const result = await recordDelivery(store, recorded, callback, at, claim);
      // Left: another instance (or this one before a restart) recorded it already.
      if (isLeft(result)) return;
      log.info('callback delivery recorded', { deliveryId: result.right.delivery.deliveryId, tenantId: callback.tenantId, status: callback.status });
      if (claim) deliverer.dispatch(result.right.delivery, result.right.revision);
    },
  });
  // The service starts features once the read models hold everything recorded so far.
  const after = lastRecordedSource(context.runner.db) ?? START;
  let scanner: Periodic | undefined;
  return {
    name: 'callbacks',
    start() {
      recorder.start(after);
      scanner = startPeriodic('callback scan', SCAN_INTERVAL_MS, () => deliverer.scan(), log);
    },
    async stop() {
      await recorder.stop();
      await scanner?.stop();
      await deliverer.stop();
    },
  };
};
