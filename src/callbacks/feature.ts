// The callbacks feature: the recorder (terminal events -> delivery streams) and the deliverer
// (due deliveries -> signed POSTs), started with the service and stopped before the stores close.
// CALLBACK_URL and CALLBACK_SECRET are the bootstrap tenant's callback where its settings set none.
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

/** How often due deliveries (retries, lapsed claims, re-sends) are looked for. */
export const SCAN_INTERVAL_MS = 250;

/**
 * CALLBACK_URL and CALLBACK_SECRET: the bootstrap tenant's callback where its settings name none
 * (the deployment's default, applied where it is read: never another tenant's, whose events are
 * another organisation's). Checked at start: both or neither.
 */
const bootstrapCallback = (config: CallbacksPorts['config']): { readonly url: string; readonly secret: string } | undefined => {
  const { callbackUrl: url, callbackSecret: secret } = config;
  if (url === undefined && secret === undefined) return undefined;
  if (url === undefined || secret === undefined) throw new Error('CALLBACK_URL and CALLBACK_SECRET must be set together');
  return { url, secret };
};

/** The ports the feature uses: `kek` is the derivation root of the tenants' callback secrets and DIDComm keys. */
export type CallbacksPorts = Pick<ServiceContext, 'config' | 'log' | 'metrics' | 'store' | 'runner' | 'dataKeys' | 'kek' | 'tenantSettings'>;

export const callbacksFeature = async (context: CallbacksPorts, options: { now?: () => Date } = {}): Promise<Feature> => {
  const { store, log, config, kek } = context;
  const now = options.now ?? (() => new Date());
  const fallback = bootstrapCallback(config);
  // DIDComm endpoints and the callback URLs tenants set themselves are URLs others chose.
  const egress = createEgress({ allowPrivateNetworks: config.egressAllowPrivateNetworks });
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
      egress,
      timeoutMs: config.callbackTimeoutSeconds * 1000,
      now,
    }),
    settings: context.tenantSettings,
    egress,
    defaultCallback: (tenantId) => (tenantId === BOOTSTRAP_TENANT_ID ? fallback : undefined),
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
