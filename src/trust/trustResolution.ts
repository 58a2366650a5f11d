// How this instance decides issuer trust, as X509_TRUST_RESOLUTION_MODE says: `static` (the
// trust anchors, exactly as before lists existed) or `lotl` (the trusted lists of
// X509_TRUST_LIST_SOURCES, loaded from the record, then refreshed every
// X509_TRUST_STORE_REFRESH_INTERVAL and when a list reaches its NextUpdate). With every source on
// record the first refresh runs once the service listens, so slow publishers cannot hold up a
// restart; with nothing recorded there is nothing to serve yet, and the service waits for it.
// The issuance feature holds its own copy of the Lists of Trusted Entities (`lote` sources), where
// wallet providers are listed (walletProviderListsFromConfig), kept the same way.
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

/** Loads the lists from the record, and fetches them now unless every one is on record. */
const loadedLists = async (lists: TrustListStore): Promise<boolean> => {
  await lists.load();
  const refreshAtStart = lists.holdsEverySource();
  if (!refreshAtStart) await lists.refresh(new Date());
  return refreshAtStart;
};

/** Trusted lists held by a feature, and their refresh schedule. */
export interface HeldLists {
  readonly lists: TrustListStore;
  /** Starts the refresh schedule. */
  start(): void;
  stop(): Promise<void>;
}

const held = (lists: TrustListStore, refreshAtStart: boolean, intervalMs: number, log: Logger): HeldLists => {
  let schedule: { stop(): Promise<void> } | undefined;
  return {
    lists,
    start() {
      schedule = refreshSchedule(lists, intervalMs, log, refreshAtStart);
    },
    async stop() {
      await schedule?.stop();
    },
  };
};

/**
 * The Lists of Trusted Entities of X509_TRUST_LIST_SOURCES (lotl mode), where TS 119 602 lists
 * wallet providers; undefined in static mode or without a `lote` source.
 */
export const walletProviderListsFromConfig = async (
  config: TrustConfig & Pick<Config, 'x509TrustResolutionMode' | 'x509TrustStoreRefreshIntervalMs'>,
  store: EventStore,
  log: Logger,
  onFetch?: TrustListStoreOptions['onFetch'],
): Promise<HeldLists | undefined> => {
  const sources = (config.x509TrustListSources ?? []).filter((source) => source.format === 'lote');
  if (config.x509TrustResolutionMode !== 'lotl' || sources.length === 0) return undefined;
  const lists = await trustListStoreFromConfig({ ...config, x509TrustListSources: sources }, store, log, 'service', new Date(), onFetch);
  return held(lists, await loadedLists(lists), config.x509TrustStoreRefreshIntervalMs, log);
};

export const trustResolutionFromConfig = async (
  config: Config,
  store: EventStore,
  log: Logger,
  onFetch?: TrustListStoreOptions['onFetch'],
): Promise<TrustResolution> => {
  if (config.x509TrustResolutionMode === 'static') {
    return { verifier: trustVerifierFromConfig(config), trustListUrls: () => undefined, start() {}, async stop() {} };
  }
  const lists = await trustListStoreFromConfig(config, store, log, 'service', new Date(), onFetch);
  const kept = held(lists, await loadedLists(lists), config.x509TrustStoreRefreshIntervalMs, log);
  const verifier = createLotlTrustVerifier({
    lists,
    staticAnchors: config.x509VerifyTrustAnchor ? trustAnchorCertificates(config.x509TrustAnchors) : undefined,
    crl: createCrlChecker({ timeoutMs: config.x509CrlTimeoutSeconds * 1000 }),
    policies: categoryPolicies(config),
    pidVcts: new Set(config.x509PidVctValues.split(',').map((v) => v.trim())),
    pidDoctypes: new Set(config.x509PidDoctypeValues.split(',').map((v) => v.trim())),
  });
  return { verifier, trustListUrls: () => lists.knownUrls(), start: () => kept.start(), stop: () => kept.stop() };
};
