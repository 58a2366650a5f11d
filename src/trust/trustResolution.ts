// How this instance decides issuer trust, as X509_TRUST_RESOLUTION_MODE says: `static` (the
// trust anchors, exactly as before lists existed) or `lotl` (the trusted lists of
// X509_TRUST_LIST_SOURCES, loaded from the record, then refreshed every
// X509_TRUST_STORE_REFRESH_INTERVAL and when a list reaches its NextUpdate). With every source on
// record the first refresh runs once the service listens, so slow publishers cannot hold up a
// restart; with nothing recorded there is nothing to serve yet, and the service waits for it.
// The issuance feature reads the same copy for wallet providers (trustListsOf).
import type { Config } from '../config/config.js';
import type { EventStore } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { blobDirectory, directoryBlobStore } from '../blobStore.js';
import { createCrlChecker } from './crl.js';
import { trustVerifierFromConfig, type TrustVerifier } from './issuerTrust.js';
import { createLotlTrustVerifier, type CategoryPolicies } from './lotlTrust.js';
import { trustAnchorCertificates } from './trustAnchors.js';
import { TrustListStore, type TrustListStoreOptions } from './trustListStore.js';

export interface TrustResolution {
  readonly verifier: TrustVerifier;
  /** The trusted lists a DCQL `etsi_tl` may name; undefined in static mode. */
  readonly trustListUrls: () => ReadonlySet<string> | undefined;
  /** Starts the refresh schedule (lotl mode). */
  start(): void;
  stop(): Promise<void>;
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

/** Loads the lists from the record, fetches them now unless every one is on record, and schedules the refreshes. */
const holdLists = async (config: Config, store: EventStore, log: Logger, onFetch?: TrustListStoreOptions['onFetch']): Promise<HeldLists> => {
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

// One copy of the trusted lists per service, whichever feature asks first: the verification
// feature resolves credential issuers with it, the issuance feature wallet providers. A service's
// features share its event store, which names the copy.
const heldByStore = new WeakMap<EventStore, Promise<HeldLists>>();

/** The trusted lists of X509_TRUST_LIST_SOURCES this service holds (lotl mode); undefined in static mode. */
export const trustListsOf = (config: Config, store: EventStore, log: Logger, onFetch?: TrustListStoreOptions['onFetch']): Promise<HeldLists> | undefined => {
  if (config.x509TrustResolutionMode === 'static') return undefined;
  let held = heldByStore.get(store);
  if (held === undefined) {
    held = holdLists(config, store, log, onFetch);
    heldByStore.set(store, held);
  }
  return held;
};

export const trustResolutionFromConfig = async (
  config: Config,
  store: EventStore,
  log: Logger,
  onFetch?: TrustListStoreOptions['onFetch'],
): Promise<TrustResolution> => {
  const held = await trustListsOf(config, store, log, onFetch);
  if (held === undefined) {
    return { verifier: trustVerifierFromConfig(config), trustListUrls: () => undefined, start() {}, async stop() {} };
  }
  const { lists } = held;
  const verifier = createLotlTrustVerifier({
    lists,
    staticAnchors: config.x509VerifyTrustAnchor ? trustAnchorCertificates(config.x509TrustAnchors) : undefined,
    crl: createCrlChecker({ timeoutMs: config.x509CrlTimeoutSeconds * 1000 }),
    policies: categoryPolicies(config),
    pidVcts: new Set(config.x509PidVctValues.split(',').map((v) => v.trim())),
    pidDoctypes: new Set(config.x509PidDoctypeValues.split(',').map((v) => v.trim())),
  });
  return { verifier, trustListUrls: () => lists.knownUrls(), start: () => held.start(), stop: () => held.stop() };
};
