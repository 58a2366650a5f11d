// Where the connector's keys are (KEY_STORE, docs/key-management.md): the access certificate's
// key (signs request objects), the Issuer Signing Certificate's key (signs credentials and status
// lists), the key-encryption key (wraps data keys), and tenants' own signing keys (tenantKeys.ts).
//   file    key files, or development chains made in DATA_DIR, and the KEK file (today's default);
//   pkcs11  keys inside a PKCS#11 token (src/crypto/pkcs11/), the certificates still PEM files.
// src/app/keyStore.ts opens the configured one.
import type { Logger } from '../log.js';
import type { ReadinessCheck } from '../readiness.js';
import { loadSigningIdentity, type SigningIdentity, type SigningIdentitySource } from './signingIdentity.js';
import { fileKek, loadKek, type Kek, type KekSource } from './kek.js';
import { sealedTenantKeys, type TenantKeyStore } from './tenantKeys.js';

export type SigningRole = 'access' | 'issuer';

/**
 * The keys cannot be used now (a PKCS#11 token that does not answer): the request fails with 503
 * (management API) or `server_error` (wallet routes) and appends nothing; retrying later may help.
 */
export class KeysUnavailable extends Error {
  override readonly name = 'KeysUnavailable';
}

export interface KeyStore {
  /** The role's key and chain; `source` says where files and development chains are (file store only). */
  signingIdentity(role: SigningRole, source: SigningIdentitySource): Promise<SigningIdentity>;
  /** Wraps and unwraps data keys. */
  readonly kek: Kek;
  /** Tenants' own signing keys (signing-key resources): made, opened and destroyed in this store. */
  readonly tenantKeys: TenantKeyStore;
  /**
   * Input key material of the secrets derived with HKDF (ServiceContext `kek`): the KEK file's key,
   * or with a token a value derived inside it from its KEK, held in memory only.
   */
  readonly derivationRoot: Buffer;
  /** `keys` in `/health/ready`: whether the token answers (absent for files). */
  readonly readinessCheck?: ReadinessCheck;
  close(): void;
}

/** KEY_STORE=file: the key files (or development chains) and the KEK file. */
export const fileKeyStore = async (source: KekSource, log: Logger): Promise<KeyStore> => {
  const key = await loadKek(source, log);
  return {
    signingIdentity: (_role, source) => loadSigningIdentity(source),
    kek: fileKek(key),
    tenantKeys: sealedTenantKeys,
    derivationRoot: key,
    close: () => undefined,
  };
};
