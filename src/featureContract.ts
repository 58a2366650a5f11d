// What a feature (verification, issuance, callbacks, resources) adds to the service: routers on
// either listener, and background work (schedulers, subscribers) started after the listeners
// and stopped before the stores close. Features are listed in src/app/features.ts.
import type Router from '@koa/router';
import type { Config } from './config/config.js';
import type { DataKeys } from './crypto/dataKeys.js';
import type { KeyStore } from './crypto/keyStore.js';
import type { EventStore } from './eventstore/port.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics/metrics.js';
import type { ReadModels } from './readside/readModels.js';
import type { ReadinessCheck } from './readiness.js';
import type { TenantSigningKeys, TenantVerifierRegistrations } from './tenantIdentity/ports.js';
import type { TenantSettings } from './tenantIdentity/settings.js';

/** What every feature gets from the service. */
export interface ServiceContext {
  readonly config: Config;
  readonly log: Logger;
  /** This instance's metrics: features count and time what they do here (src/metrics/metrics.ts). */
  readonly metrics: Metrics;
  /** Appends are timed and counted into `metrics`. */
  readonly store: EventStore;
  /** Read models (`runner.db`) and read-your-writes (`runner.waitFor`). */
  readonly runner: ReadModels;
  readonly dataKeys: DataKeys;
  /** The signing identities of the access and issuer roles, from files or a PKCS#11 token (src/crypto/keyStore.ts). */
  readonly keys: KeyStore;
  /**
   * Input key material of derived secrets (callback secrets, DID keys, OID4VCI and upload
   * secrets): the key-encryption key file's key, or with a token a value derived inside it
   * (KeyStore `derivationRoot`). Data keys are wrapped by `keys.kek`, not with this.
   */
  readonly kek: Buffer;
  /** Each tenant's own signing keys (src/tenantIdentity/ports.ts). */
  readonly tenantKeys: TenantSigningKeys;
  /** Each tenant's registration as a relying party. */
  readonly verifierRegistrations: TenantVerifierRegistrations;
  /** Each tenant's settings over the environment's defaults (src/tenantIdentity/settings.ts). */
  readonly tenantSettings: TenantSettings;
}

/** A certificate a feature presents to others (its chain's leaf): the console warns before it expires. */
export interface PresentedCertificate {
  /** `access` (the verifier's), `issuer`. */
  readonly role: string;
  readonly subject: string;
  readonly notAfter: Date;
}

export interface Feature {
  readonly name: string;
  /** The certificates the feature presents, for expiry warnings. */
  readonly certificates?: readonly PresentedCertificate[];
  /** Mounted behind API-key authentication on the management listener. */
  readonly managementRouters?: readonly Router[];
  /** Mounted on the public (wallet-facing) listener. */
  readonly publicRouters?: readonly Router[];
  /**
   * What the feature needs to serve, checked by `GET /health/ready` beside the store and the read
   * models: the place for "trust data usable" once trust lists are configured.
   */
  readonly readinessChecks?: readonly ReadinessCheck[];
  /**
   * Background work the deployment's process that keeps the read models runs, once for all its
   * processes (with WORKERS > 1, the primary; src/workers/): schedulers, subscribers.
   */
  start?(): void;
  /** Background work every process that serves requests runs for itself: keeping its own copy of something current. */
  startServing?(): void;
  /** Stops whatever either of them started. */
  stop?(): Promise<void>;
}
