// How this instance decides issuer trust, as X509_TRUST_RESOLUTION_MODE says: `static` (the
// trust anchors, exactly as before lists existed) or `lotl` (the trusted lists of
// X509_TRUST_LIST_SOURCES, loaded from the record, then refreshed every
// X509_TRUST_STORE_REFRESH_INTERVAL and when a list reaches its NextUpdate). With every source on
// record the first refresh runs once the service listens, so slow publishers cannot hold up a
// restart; with nothing recorded there is nothing to serve yet, and the service waits for it.
// The assembly holds the lists once (trustListsFromConfig); the issuance feature reads the same
// copy for wallet providers.
import type { Config } from '../config/config.js';
import type { Feature } from '../featureContract.js';
import type { EventStore } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { blobDirectory, directoryBlobStore } from '../blobStore.js';
import { createEgress } from '../egress/egress.js';
import { createCrlChecker } from './crl.js';
import { trustVerifierFromConfig, type TrustVerifier } from './issuerTrust.js';
import { createLotlTrustVerifier, type CategoryPolicies } from './lotlTrust.js';
import { trustAnchorCertificates } from './trustAnchors.js';
import { TrustListStore, type TrustListStoreOptions } from './trustListStore.js';

export interface TrustResolution {
  readonly verifier: TrustVerifier;
  /** The trusted lists a DCQL `etsi_tl` may name; undefined in static mode. */
  readonly trustListUrls: () => ReadonlySet<string> | undefined;
}

type TrustConfig = Pick<
  Config,
  | 'x509TrustListSources'
  | 'x509LotlFetchTimeoutMs'
  | 'x509MaxResponseBytes'
  | 'x509StalenessWindowMs'
  | 'blobDir'
  | 'dataDir'
>;

/**
 * The store of trusted lists the configuration describes (lotl mode; also `ops trust-lists`).
 * `startedAt`: data fetched before it counts as served from the record.
 */
export const trustListStoreFromConfig = async (
  config: TrustConfig,
  store: EventStore,
  log: Logger,
  actor: string,
  startedAt = new Date(),
  onFetch?: TrustListStoreOptions['onFetch'],
): Promise<TrustListStore> =>
  new TrustListStore({
    ...(onFetch ? { onFetch } : {}),
    sources: config.x509TrustListSources ?? [],
    store,
    blobs: await directoryBlobStore(blobDirectory(config)),
    bounds: { timeoutMs: config.x509LotlFetchTimeoutMs, maxBytes: config.x509MaxResponseBytes },
    stalenessWindowMs: config.x509StalenessWindowMs,
    log,
    actor,
    startedAt,
  });

export const categoryPolicies = (config: Pick<Config, 'x509TrustPolicy' | 'x509TrustPolicyPid' | 'x509TrustPolicyQeaa' | 'x509TrustPolicyPubEaa' | 'x509TrustPolicyNonQualifiedEaa'>): CategoryPolicies => ({
  default: config.x509TrustPolicy,
  PID: config.x509TrustPolicyPid ?? config.x509TrustPolicy,
  QEAA: config.x509TrustPolicyQeaa ?? config.x509TrustPolicy,
  PUB_EAA: config.x509TrustPolicyPubEaa ?? config.x509TrustPolicy,
  NON_QUALIFIED_EAA: config.x509TrustPolicyNonQualifiedEaa ?? config.x509TrustPolicy,
});

/**
 * Refreshes at the pace the lists ask for (the first one at once when `now`), never two at once;
 * a failed run is logged, the next one still comes.
 */
const refreshSchedule = (lists: TrustListStore, intervalMs: number, log: Logger, now: boolean): { stop(): Promise<void> } => {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = lists
        .refresh(new Date())
        .catch((err: unknown) => log.error('trust list refresh failed', { err }))
        .finally(() => schedule(lists.nextRefreshDelay(new Date(), intervalMs)));
    }, delayMs);
  };
  schedule(now ? 0 : lists.nextRefreshDelay(new Date(), intervalMs));
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
};

/** Trusted lists held by a service, and their refresh schedule. */
export interface HeldLists {
  readonly lists: TrustListStore;
  /** Starts the refresh schedule; once started, a call does nothing. */
  start(): void;
  stop(): Promise<void>;
}

/**
 * The trusted lists of X509_TRUST_LIST_SOURCES (lotl mode; undefined in static mode), held once
 * per service by the assembly: the verification feature resolves credential issuers with them, the
 * issuance feature wallet providers. Loads them from the record, fetches them now unless every one
 * is on record, and schedules the refreshes once started.
 */
export const trustListsFromConfig = async (config: Config, store: EventStore, log: Logger, onFetch?: TrustListStoreOptions['onFetch']): Promise<HeldLists | undefined> => {
  if (config.x509TrustResolutionMode === 'static') return undefined;
  const lists = await trustListStoreFromConfig(config, store, log, 'service', new Date(), onFetch);
  await lists.load();
  const refreshAtStart = lists.holdsEverySource();
  if (!refreshAtStart) await lists.refresh(new Date());
  let schedule: { stop(): Promise<void> } | undefined;
  return {
    lists,
    start() {
      schedule ??= refreshSchedule(lists, config.x509TrustStoreRefreshIntervalMs, log, refreshAtStart);
    },
    async stop() {
      await schedule?.stop();
    },
  };
};

/** The held lists as a feature of their own: every serving process keeps its copy current. */
export const trustListsFeature = (held: HeldLists | undefined): Feature => ({
  name: 'trusted-lists',
  startServing: () => held?.start(),
  stop: async () => held?.stop(),
});

export const trustResolutionFromConfig = (config: Config, held: HeldLists | undefined): TrustResolution => {
  if (held === undefined) return { verifier: trustVerifierFromConfig(config), trustListUrls: () => undefined };
  const { lists } = held;
  const verifier = createLotlTrustVerifier({
    lists,
    staticAnchors: config.x509VerifyTrustAnchor ? trustAnchorCertificates(config.x509TrustAnchors) : undefined,
    crl: createCrlChecker({ egress: createEgress({ allowPrivateNetworks: config.egressAllowPrivateNetworks }), timeoutMs: config.x509CrlTimeoutSeconds * 1000 }),
    policies: categoryPolicies(config),
    pidVcts: new Set(config.x509PidVctValues.split(',').map((v) => v.trim())),
    pidDoctypes: new Set(config.x509PidDoctypeValues.split(',').map((v) => v.trim())),
  });
  return { verifier, trustListUrls: () => lists.knownUrls() };
};
