// Configuration from environment variables, validated once at start so a bad deployment fails
// immediately with every problem listed, instead of at the first request that needs a value.
//
// To add a variable, add one row to `variables`; `Config` follows from the table.
// An empty value counts as unset (`FOO=` in a compose file usually means "no value").
import { isIP } from 'node:net';
import * as t from 'io-ts';
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { durationFromString, HttpBaseUrl, integerFromString, MillisecondsFromString, PortFromString, withMessage } from '../http/codecs.js';
import { LOG_LEVELS } from '../log.js';
import type { LogLevel } from '../log.js';
import { TrustAnchorsFromString, TrustListSourcesFromString } from './trust.js';
import { CallbackUrl, DEFAULT_RETRY_SCHEDULE, RetryScheduleFromString, WebhookSecret } from './callbacks.js';
import { withoutUserInfo } from '../http/redact.js';

interface Variable<A> {
  readonly env: string;
  /** Secrets are never echoed in error messages, only their length. */
  readonly secret: boolean;
  /** Long values (a JSON document) are not echoed either: the message says where the problem is. */
  readonly long?: boolean;
  /** An older name still read when `env` is unset (documented as deprecated). */
  readonly alias?: string;
  readonly read: (raw: string | undefined) => Either<string, A>;
}

/** A variable with a default, given as the raw text so it goes through the same validation. */
function withDefault<A>(env: string, codec: t.Decoder<unknown, A>, fallback: string): Variable<A> {
  return { env, secret: false, read: (raw) => decodeVar(codec, raw ?? fallback) };
}

/** A variable that may be unset (undefined in Config). */
function optional<A>(env: string, codec: t.Decoder<unknown, A>, opts: { secret?: boolean; long?: boolean } = {}): Variable<A | undefined> {
  return { env, secret: opts.secret ?? false, long: opts.long ?? false, read: (raw) => (raw === undefined ? right(undefined) : decodeVar(codec, raw)) };
}

function decodeVar<A>(codec: t.Decoder<unknown, A>, raw: string): Either<string, A> {
  const result = codec.decode(raw);
  if (!isLeft(result)) return result;
  const first = result.left[0];
  return left(first?.message ?? `expected ${codec.name}`);
}

export const KEY_STORES = ['file', 'pkcs11'] as const;
const KeyStoreCodec = withMessage(t.keyof({ file: null, pkcs11: null }), `expected one of ${KEY_STORES.join(', ')}`);

const LogLevelCodec = withMessage(
  t.keyof(Object.fromEntries(LOG_LEVELS.map((l) => [l, null])) as Record<LogLevel, null>),
  `expected one of ${LOG_LEVELS.join(', ')}`,
);

const NonEmptyText = withMessage(
  t.refinement(t.string, (s) => s.trim() !== ''),
  'expected a non-empty value',
);

// A listen address: an IP literal (v4 or v6, without brackets) or a DNS name.
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const Host = withMessage(
  t.refinement(t.string, (s) => isIP(s) !== 0 || HOSTNAME.test(s)),
  'expected an IP address or host name',
);

// The client itself only understands these two schemes; checking here fails at start, not at first use.
const EventStoreConnectionString = withMessage(
  t.refinement(t.string, (s) => /^esdb(\+discover)?:\/\/\S+$/.test(s)),
  'expected an esdb:// or esdb+discover:// connection string',
);

// High-entropy secret: 32+ URL-safe characters (e.g. 24 random bytes in base64url).
const ApiKey = withMessage(
  t.refinement(t.string, (s) => /^[A-Za-z0-9_-]{32,}$/.test(s)),
  'expected at least 32 characters from [A-Za-z0-9_-]',
);

// 32 bytes in base64url (43 characters): an AES-256 key.
const Key256 = withMessage(
  t.refinement(t.string, (s) => /^[A-Za-z0-9_-]{43}$/.test(s) && Buffer.from(s, 'base64url').length === 32),
  'expected 32 bytes in base64url (43 characters)',
);

// The connector's own redirect after same-device flows: wallets send the user's browser there, so
// plain http is only accepted on the loopback (a developer's machine).
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const DefaultRedirectUri = withMessage(
  t.refinement(t.string, (s) => {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      return false;
    }
    const scheme = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
    return scheme && !s.includes('#') && url.username === '' && url.password === '';
  }),
  'expected an absolute https URL (http only on localhost) without credentials or fragment',
);

const BooleanFromString = new t.Type<boolean, string, unknown>(
  'BooleanFromString',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (u === 'true' ? t.success(true) : u === 'false' ? t.success(false) : t.failure(u, c, 'expected true or false')),
  String,
);

// Each list holds a whole number of bytes at any bit size (section 4.1 recommends it); 2^24 entries
// are 4 MiB of statuses, beyond which one list stops being something verifiers fetch casually.
const StatusListSize = withMessage(
  t.refinement(integerFromString(8, 16_777_216), (n) => n % 8 === 0),
  'expected a multiple of 8, 8-16777216',
);

const TrustPolicy = withMessage(t.keyof({ evaluate: null, enforce: null, disabled: null }), 'expected evaluate, enforce or disabled');

// Up to 24 days: Node's timers cannot wait longer.
const MAX_REFRESH_MS = 24 * 86_400_000;

const VctList = withMessage(
  t.refinement(t.string, (s) => s.split(',').every((v) => v.trim() !== '')),
  'expected comma-separated vct values',
);

const variables = {
  dataDir: withDefault('DATA_DIR', NonEmptyText, './data'),
  /** Each instance's own read models; default DATA_DIR/readmodels.sqlite. */
  readModelsFile: optional('READ_MODELS_FILE', NonEmptyText),
  /** When set, the EventStoreDB adapter is used instead of the embedded store. */
  eventStoreConnectionString: optional('EVENTSTORE_CONNECTION_STRING', EventStoreConnectionString, { secret: true }),
  managementPort: withDefault('MANAGEMENT_PORT', PortFromString, '8081'),
  /** Loopback by default: the management API is internal. */
  managementHost: withDefault('MANAGEMENT_HOST', Host, '127.0.0.1'),
  publicPort: withDefault('PUBLIC_PORT', PortFromString, '8080'),
  publicHost: withDefault('PUBLIC_HOST', Host, '0.0.0.0'),
  /** Base URL wallets see; no trailing slash. */
  publicUrl: withDefault('PUBLIC_URL', HttpBaseUrl, 'http://localhost:8080'),
  bootstrapApiKey: optional('BOOTSTRAP_API_KEY', ApiKey, { secret: true }),
  /** Wraps the per-flow data keys; unset means a key file (src/crypto/kek.ts says which). */
  dataKeyEncryptionKey: optional('DATA_KEY_ENCRYPTION_KEY', Key256, { secret: true }),
  /** The key file when DATA_KEY_ENCRYPTION_KEY is unset; made on first start if missing. */
  dataKeyEncryptionKeyFile: optional('DATA_KEY_ENCRYPTION_KEY_FILE', NonEmptyText),
  // keys (docs/key-management.md)
  /** Where the signing keys and the key-encryption key live: `file` (files, or a development chain) or `pkcs11` (a token). */
  keyStore: withDefault('KEY_STORE', KeyStoreCodec, 'file'),
  /** The PKCS#11 library (e.g. /usr/lib/softhsm/libsofthsm2.so). */
  pkcs11Module: optional('PKCS11_MODULE', NonEmptyText),
  /** The token, by label; or PKCS11_SLOT, by slot id. */
  pkcs11TokenLabel: optional('PKCS11_TOKEN_LABEL', NonEmptyText),
  pkcs11Slot: optional('PKCS11_SLOT', integerFromString(0, 2 ** 32 - 1)),
  /** The user PIN; or PKCS11_PIN_FILE, a file holding it. Never logged. */
  pkcs11Pin: optional('PKCS11_PIN', NonEmptyText, { secret: true }),
  pkcs11PinFile: optional('PKCS11_PIN_FILE', NonEmptyText),
  /** Sessions the connector keeps open on the token: signing and key wrapping run in parallel up to this many. */
  pkcs11Sessions: withDefault('PKCS11_SESSIONS', integerFromString(1, 64), '4'),
  /** Labels of the token's keys: the access certificate's and the Issuer Signing Certificate's (EC P-256), the KEK (AES-256). */
  accessKeyLabel: optional('ACCESS_KEY_LABEL', NonEmptyText),
  issuerKeyLabel: optional('ISSUER_KEY_LABEL', NonEmptyText),
  kekLabel: optional('KEK_LABEL', NonEmptyText),
  logLevel: withDefault('LOG_LEVEL', LogLevelCodec, 'info'),
  readYourWritesTimeoutMs: withDefault('READ_YOUR_WRITES_TIMEOUT_MS', MillisecondsFromString, '5000'),
  shutdownTimeoutMs: withDefault('SHUTDOWN_TIMEOUT_MS', MillisecondsFromString, '10000'),
  /** `/health/ready` fails once the oldest event the read models have not applied is this old. */
  readinessMaxLagMs: withDefault('READINESS_MAX_LAG_MS', MillisecondsFromString, '10000'),
  /** Processes serving requests (docs/operations.md, Process model); 1 runs the whole service in one process. */
  workers: withDefault('WORKERS', integerFromString(1, 256), '1'),
  // verification (OpenID4VP): variables added here
  /** PEM chain (leaf first) and PKCS#8 key of the access certificate; unset means a development chain in DATA_DIR. */
  accessCertificateFile: optional('ACCESS_CERTIFICATE_FILE', NonEmptyText),
  accessKeyFile: optional('ACCESS_KEY_FILE', NonEmptyText),
  /** PEM chain and PKCS#8 key of the Issuer Signing Certificate; a key pair separate from the access certificate's. */
  issuerCertificateFile: optional('ISSUER_CERTIFICATE_FILE', NonEmptyText),
  issuerKeyFile: optional('ISSUER_KEY_FILE', NonEmptyText),
  /** Anchor issuer chains in X509_TRUST_ANCHORS and check CRLs. */
  x509VerifyTrustAnchor: withDefault('X509_VERIFY_TRUST_ANCHOR', BooleanFromString, 'false'),
  x509TrustAnchors: withDefault('X509_TRUST_ANCHORS', TrustAnchorsFromString, ''),
  x509CrlTimeoutSeconds: withDefault('X509_CRL_TIMEOUT_SECONDS', integerFromString(1, 300), '10'),
  /** The spec's trust verification policy, one for every credential category in static mode. */
  x509TrustPolicy: withDefault('X509_TRUST_POLICY', TrustPolicy, 'evaluate'),
  /** `static`: X509_TRUST_ANCHORS only, as before v1.3.0; `lotl`: the trusted lists of X509_TRUST_LIST_SOURCES. */
  x509TrustResolutionMode: withDefault('X509_TRUST_RESOLUTION_MODE', withMessage(t.keyof({ static: null, lotl: null }), 'expected static or lotl'), 'static'),
  x509TrustListSources: optional('X509_TRUST_LIST_SOURCES', TrustListSourcesFromString, { long: true }),
  x509TrustStoreRefreshIntervalMs: withDefault('X509_TRUST_STORE_REFRESH_INTERVAL', durationFromString(1000, MAX_REFRESH_MS), '6h'),
  /** How old the trusted list data in use may be after failed fetches before trust fails closed. */
  x509StalenessWindowMs: withDefault('X509_STALENESS_WINDOW', durationFromString(1000, 365 * 86_400_000), '24h'),
  x509LotlFetchTimeoutMs: withDefault('X509_LOTL_FETCH_TIMEOUT', durationFromString(1000, 300_000), '30s'),
  x509MaxResponseBytes: withDefault('X509_MAX_RESPONSE_BYTES', integerFromString(1024, 1_073_741_824), '10485760'),
  /** Per credential category (lotl mode); unset means X509_TRUST_POLICY. */
  x509TrustPolicyPid: optional('X509_TRUST_POLICY_PID', TrustPolicy),
  x509TrustPolicyQeaa: optional('X509_TRUST_POLICY_QEAA', TrustPolicy),
  x509TrustPolicyPubEaa: optional('X509_TRUST_POLICY_PUB_EAA', TrustPolicy),
  x509TrustPolicyNonQualifiedEaa: optional('X509_TRUST_POLICY_NON_QUALIFIED_EAA', TrustPolicy),
  /** Credential types that are PIDs: trusted only through a PID provider's service. */
  x509PidVctValues: withDefault('X509_PID_VCT_VALUES', VctList, 'urn:eudi:pid:1,urn:eu.europa.ec.eudi:pid:1'),
  x509PidDoctypeValues: withDefault('X509_PID_DOCTYPE_VALUES', VctList, 'eu.europa.ec.eudi.pid.1'),
  /** Lifetime of a presentation request when `expires_in` is omitted, in seconds. */
  presentationExpiresIn: withDefault('PRESENTATION_EXPIRES_IN', integerFromString(1, 86_400), '300'),
  /** Bounds of `expires_in`, in seconds; values outside are refused with 400. */
  presentationExpiresInMin: withDefault('PRESENTATION_EXPIRES_IN_MIN', integerFromString(1, 86_400), '30'),
  presentationExpiresInMax: withDefault('PRESENTATION_EXPIRES_IN_MAX', integerFromString(1, 86_400), '3600'),
  /** How often the scheduler looks for presentation requests past their expiry. */
  presentationExpiryIntervalMs: withDefault('PRESENTATION_EXPIRY_INTERVAL_MS', integerFromString(10, 3_600_000), '1000'),
  /** Where same-device flows send the browser when the request has no `redirect_uri`; unset means no redirect. */
  defaultRedirectUri: optional('DEFAULT_REDIRECT_URI', DefaultRedirectUri),
  /** Registrars' certificates a tenant's registration certificate (`PUT /verifier`) must chain to; unset: its chain is not checked. */
  registrationCertificateTrustAnchors: optional('REGISTRATION_CERTIFICATE_TRUST_ANCHORS', TrustAnchorsFromString),
  // issuance (OpenID4VCI): variables added here
  /** JSON file of the credential configurations; unset means the built-in `pid` and `membership` types. */
  credentialConfigurationsFile: optional('CREDENTIAL_CONFIGURATIONS', NonEmptyText),
  /** Time a wallet has to finish an offer, from its creation. */
  offerTtlSeconds: withDefault('OFFER_TTL_SECONDS', integerFromString(1, 86_400), '300'),
  /** How often the scheduler looks for offers past their time-to-live. */
  offerExpiryIntervalMs: withDefault('OFFER_EXPIRY_INTERVAL_MS', integerFromString(10, 3_600_000), '1000'),
  /** Wrong transaction codes an offer tolerates; the last one fails the offer. */
  txCodeMaxAttempts: withDefault('TX_CODE_MAX_ATTEMPTS', integerFromString(1, 100), '3'),
  /** Lifetime of a c_nonce from the nonce endpoint. */
  cNonceTtlSeconds: withDefault('C_NONCE_TTL_SECONDS', integerFromString(1, 3_600), '120'),
  /** Oldest `iat` accepted in a DPoP proof or key proof. */
  proofMaxAgeSeconds: withDefault('PROOF_MAX_AGE_SECONDS', integerFromString(1, 3_600), '120'),
  /** Validity of an issued credential (`exp` - `iat`). */
  credentialValidityDays: withDefault('CREDENTIAL_VALIDITY_DAYS', integerFromString(1, 3_650), '365'),
  /** Certificates a wallet attestation's chain must end at: the trusted wallet providers. */
  walletProviderTrustAnchors: withDefault('WALLET_PROVIDER_TRUST_ANCHORS', TrustAnchorsFromString, ''),
  /** Whether pre-authorized token requests need a wallet attestation; the authorization code flow always does. */
  walletAttestation: withDefault('WALLET_ATTESTATION', withMessage(t.keyof({ required: null, optional: null }), 'expected required or optional'), 'optional'),
  /** Where the bootstrap tenant's users authenticate in the authorization code flow (`authorization_id` is added). */
  authenticationUrl: optional('AUTHENTICATION_URL', CallbackUrl),
  /** Time the user has, from the wallet's authorization request, until the integrator completes it. */
  authorizationTtlSeconds: withDefault('AUTHORIZATION_TTL_SECONDS', integerFromString(1, 86_400), '600'),
  // credential status (draft-ietf-oauth-status-list): variables added here
  /** Entries per Status List the issuer starts (2 bits each); a multiple of 8, so a list fills whole bytes. */
  statusListSize: withDefault('STATUS_LIST_SIZE', StatusListSize, '131072'),
  /** `ttl` of the served Status List Tokens; a served token is at most this old. */
  statusListTtlSeconds: withDefault('STATUS_LIST_TTL_SECONDS', integerFromString(1, 86_400), '60'),
  /** `exp` of the served Status List Tokens, counted from their `iat`. */
  statusListValiditySeconds: withDefault('STATUS_LIST_VALIDITY_SECONDS', integerFromString(1, 31_536_000), '86400'),
  /** What a status list that cannot be had (unreachable, unverifiable, expired) does to a presentation. */
  statusListFailurePolicy: withDefault(
    'STATUS_LIST_FAILURE_POLICY',
    withMessage(t.keyof({ enforce: null, evaluate: null }), 'expected enforce or evaluate'),
    'enforce',
  ),
  /** Time limit of one Status List Token fetch, redirects and body included. */
  statusListFetchTimeoutSeconds: withDefault('STATUS_LIST_FETCH_TIMEOUT_SECONDS', integerFromString(1, 300), '10'),
  /** Largest Status List Token response, and largest decompressed list, each. */
  statusListMaxBytes: withDefault('STATUS_LIST_MAX_BYTES', integerFromString(1_024, 268_435_456), '10485760'),
  /** Longest a fetched Status List Token is relied on, whatever its `ttl` and `exp` say. */
  statusListCacheMaxSeconds: withDefault('STATUS_LIST_CACHE_MAX_SECONDS', integerFromString(1, 86_400), '300'),
  /** Decompressed status lists held in memory at most, all lists together; the least recently used go first. */
  statusListCacheMaxBytes: withDefault('STATUS_LIST_CACHE_MAX_BYTES', integerFromString(1_024, 4_294_967_296), '67108864'),
  // callbacks: variables added here
  /** The bootstrap tenant's callback URL, applied at start (with CALLBACK_SECRET). */
  callbackUrl: optional('CALLBACK_URL', CallbackUrl),
  /** The bootstrap tenant's Standard Webhooks signing secret, `whsec_...`. */
  callbackSecret: optional('CALLBACK_SECRET', WebhookSecret, { secret: true }),
  /** Delay before each attempt: the first from the terminal event, each next from the failure before. */
  callbackRetrySchedule: withDefault('CALLBACK_RETRY_SCHEDULE', RetryScheduleFromString, DEFAULT_RETRY_SCHEDULE),
  callbackTimeoutSeconds: withDefault('CALLBACK_TIMEOUT_SECONDS', integerFromString(1, 300), '15'),
  /** Attempts one instance runs at the same time. */
  callbackMaxInFlight: withDefault('CALLBACK_MAX_IN_FLIGHT', integerFromString(1, 1000), '64'),
  /**
   * URLs others choose (status lists, CRL distribution points, DIDComm endpoints, did:web hosts) may
   * reach private and reserved addresses, and DIDComm plain http (closed networks, tests).
   */
  egressAllowPrivateNetworks: { ...withDefault('EGRESS_ALLOW_PRIVATE_NETWORKS', BooleanFromString, 'false'), alias: 'DIDCOMM_ALLOW_PRIVATE_ENDPOINTS' },
  // resources (platform resource API): variables added here
  /** Lifetime of a pre-signed upload URL (`timeout` of the upload answer). */
  blobUploadTimeoutSeconds: withDefault('BLOB_UPLOAD_TIMEOUT_SECONDS', integerFromString(1, 86_400), '900'),
  /** Largest blob one upload may store. */
  blobMaxBytes: withDefault('BLOB_MAX_BYTES', integerFromString(1, 1_073_741_824), '10485760'),
  /** The blob store's directory; unset means DATA_DIR/blobs. Instances of one deployment share it. */
  blobDir: optional('BLOB_DIR', NonEmptyText),
  /** `POST /signing-keys` may ask for `development_chain` (a tenant key certified at once by DATA_DIR's development CA); false: 403. */
  allowDevelopmentChains: withDefault('ALLOW_DEVELOPMENT_CHAINS', BooleanFromString, 'true'),
  /** How long a deleted credential or file may be restored; then its content key is destroyed and its blob removed. */
  restoreWindowSeconds: withDefault('RESTORE_WINDOW_SECONDS', integerFromString(0, 31_622_400), '604800'),
  /** How often the blob sweeper runs (removes shredded, expired and unreferenced blob files). */
  blobSweepIntervalMs: withDefault('BLOB_SWEEP_INTERVAL_MS', integerFromString(10, 86_400_000), '60000'),
  /** How long an Idempotency-Key holds its recorded reply (24 h in the spec); then the reply is shredded. */
  idempotencyKeyTtlSeconds: withDefault('IDEMPOTENCY_KEY_TTL_SECONDS', integerFromString(1, 86_400), '86400'),
  /** How often the scheduler shreds the replies of expired Idempotency-Keys. */
  idempotencyExpiryIntervalMs: withDefault('IDEMPOTENCY_EXPIRY_INTERVAL_MS', integerFromString(10, 3_600_000), '60000'),
  /** Requests a tenant may make to the resource API per window, in each instance. */
  resourceRateLimit: withDefault('RESOURCE_RATE_LIMIT', integerFromString(1, 1_000_000), '6000'),
  resourceRateWindowSeconds: withDefault('RESOURCE_RATE_WINDOW_SECONDS', integerFromString(1, 3_600), '60'),
  /** How long a support request's export archive (DATA_DUMP) stays downloadable; then it is deleted and its key destroyed. */
  supportExportRetentionSeconds: withDefault('SUPPORT_EXPORT_RETENTION_SECONDS', integerFromString(60, 2_592_000), '604800'),
  /** How often the scheduler deletes expired export archives. */
  supportExportExpiryIntervalMs: withDefault('SUPPORT_EXPORT_EXPIRY_INTERVAL_MS', integerFromString(10, 86_400_000), '3600000'),
} satisfies Record<string, Variable<unknown>>;

type Variables = typeof variables;

export type Config = {
  readonly [K in keyof Variables]: Variables[K] extends Variable<infer A> ? A : never;
};

/** The environment variable behind each Config key, for messages elsewhere ("set PUBLIC_URL..."). */
export const configVariableNames: { readonly [K in keyof Config]: string } = Object.fromEntries(
  Object.entries(variables).map(([key, v]) => [key, v.env]),
) as { [K in keyof Config]: string };

/**
 * One variable's value read from `raw`, the text the environment would hold: what a tenant's
 * setting that overrides it may hold (src/tenantIdentity/settings.ts). Left is the message.
 */
export const readVariable = <K extends keyof Config>(key: K, raw: string): Either<string, Config[K]> => (variables[key] as Variable<Config[K]>).read(raw);

// A URL's user-info is never echoed either: it is a password given where none belongs.
const describeValue = (raw: string, variable: Variable<unknown>): string =>
  variable.secret || variable.long ? `a ${raw.length}-character value` : withoutUserInfo(JSON.stringify(raw));

/** With KEY_STORE=pkcs11: what the token needs set, and the key files and KEK it replaces unset. */
const keyStoreConfigurationProblems = (config: Config): string[] => {
  if (config.keyStore !== 'pkcs11') return [];
  const name = configVariableNames;
  const required = (['pkcs11Module', 'accessKeyLabel', 'issuerKeyLabel', 'kekLabel', 'accessCertificateFile', 'issuerCertificateFile'] as const)
    .filter((key) => config[key] === undefined)
    .map((key) => `${name[key]}: required when KEY_STORE is pkcs11`);
  const replaced = (['accessKeyFile', 'issuerKeyFile', 'dataKeyEncryptionKey', 'dataKeyEncryptionKeyFile'] as const)
    .filter((key) => config[key] !== undefined)
    .map((key) => `${name[key]}: set, but KEY_STORE is pkcs11 (the token holds that key: unset it)`);
  const oneOf = (a: keyof Config, b: keyof Config): string[] =>
    (config[a] === undefined) === (config[b] === undefined) ? [`${name[a]}, ${name[b]}: set exactly one when KEY_STORE is pkcs11`] : [];
  return [...required, ...oneOf('pkcs11TokenLabel', 'pkcs11Slot'), ...oneOf('pkcs11Pin', 'pkcs11PinFile'), ...replaced];
};

/** The variables behind `keys`, read from `env`: their values, or one message per bad variable. */
function readVariables<K extends keyof Config>(env: NodeJS.ProcessEnv, keys: readonly K[]): Either<string[], Pick<Config, K>> {
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  const given = (name: string | undefined): string | undefined => {
    const value = name === undefined ? undefined : env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  for (const key of keys) {
    const variable: Variable<unknown> = variables[key];
    const current = given(variable.env);
    const aliased = given(variable.alias);
    if (current !== undefined && aliased !== undefined && current !== aliased) {
      errors.push(`${variable.env}: set, and its deprecated name ${variable.alias} is set to another value (unset ${variable.alias})`);
      continue;
    }
    const raw = current ?? aliased;
    const name = current === undefined && aliased !== undefined ? variable.alias : variable.env;
    const result = variable.read(raw);
    if (isLeft(result)) {
      errors.push(raw === undefined
        ? `${name}: ${result.left}`
        : `${name}: ${result.left}, got ${describeValue(raw, variable)}`);
    } else {
      values[key] = result.right;
    }
  }
  return errors.length > 0 ? left(errors) : right(values as Pick<Config, K>);
}

/** The PKCS11_* settings: all that `ops keys` needs to reach the token. */
export const TOKEN_SETTINGS = ['pkcs11Module', 'pkcs11TokenLabel', 'pkcs11Slot', 'pkcs11Pin', 'pkcs11PinFile', 'pkcs11Sessions'] as const;
export type TokenSettings = Pick<Config, (typeof TOKEN_SETTINGS)[number]>;

/**
 * The PKCS#11 token's settings alone, the rest of the environment ignored: `ops keys` makes the
 * keys (and the certificates for them) that the rest of the configuration names, so it runs with
 * the service's environment before those exist.
 */
export const loadTokenSettings = (env: NodeJS.ProcessEnv): Either<string[], TokenSettings> => readVariables(env, TOKEN_SETTINGS);

/**
 * Read and validate the configuration. On failure, one message per bad variable, each starting
 * with the variable's name, e.g. `MANAGEMENT_PORT: expected an integer 0-65535, got "abc"`.
 */
export function loadConfig(env: NodeJS.ProcessEnv): Either<string[], Config> {
  const read = readVariables(env, Object.keys(variables) as (keyof Config)[]);
  if (isLeft(read)) return read;
  const config = read.right as Config;
  const keyStoreProblems = keyStoreConfigurationProblems(config);
  if (keyStoreProblems.length > 0) return left(keyStoreProblems);
  // Both listeners bind in the same process; a shared fixed port can only fail at listen time.
  if (config.publicPort !== 0 && config.publicPort === config.managementPort) {
    return left([`PUBLIC_PORT: must differ from MANAGEMENT_PORT, both are ${config.publicPort}`]);
  }
  // Lists configured but not used would look like trust the connector does not apply.
  if (config.x509TrustResolutionMode === 'lotl' && config.x509TrustListSources === undefined) {
    return left(['X509_TRUST_LIST_SOURCES: required when X509_TRUST_RESOLUTION_MODE is lotl']);
  }
  if (config.x509TrustResolutionMode === 'static' && config.x509TrustListSources !== undefined) {
    return left(['X509_TRUST_LIST_SOURCES: set, but X509_TRUST_RESOLUTION_MODE is static (set it to lotl to use the lists)']);
  }
  return right(config);
}
