// TenantSigningKeys (ports.ts) over the `signing-keys` resources: a tenant's active key of a role
// from the read models, its signer opened through the key store (src/crypto/tenantKeys.ts) and its
// certificate chain, as a SigningIdentity. Flows sign with it on their hot path, so each identity is
// built once per key revision and kept: a later revision (a renewed certificate) builds it anew;
// a retired or deleted key is no longer found, so it never signs again.
import { findActiveSigningKey } from '../../projections/resources.js';
import { decodeRecorded } from '../../streams/event.js';
import { signingKey, signingKeyStream, type PublicJwk } from '../../streams/signingKey.js';
import { certificatesFromPem } from '../crypto/certificates.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import type { KeyStore } from '../crypto/keyStore.js';
import { certifiedSigner, type SigningIdentity } from '../crypto/signingIdentity.js';
import type { EventStore } from '../eventstore/port.js';
import type { ReadModels } from '../readside/readModels.js';
import type { TenantSigningKeys } from './ports.js';

export interface TenantSigningKeysDeps {
  readonly store: EventStore;
  readonly runner: Pick<ReadModels, 'db'>;
  readonly keys: Pick<KeyStore, 'tenantKeys'>;
  readonly dataKeys: DataKeys;
}

export const tenantSigningKeys = (deps: TenantSigningKeysDeps): TenantSigningKeys => {
  /** By key id: the identity of the revision last read. */
  const built = new Map<string, { readonly revision: number; readonly identity: Promise<SigningIdentity | undefined> }>();

  /** The key's identity at the revision read: its material from its first event, its chain from the read model. */
  const build = async (keyId: string, publicJwk: PublicJwk, pem: string): Promise<SigningIdentity | undefined> => {
    const read = await deps.store.readStream(signingKeyStream(keyId), { maxCount: 1 });
    const first = read._tag === 'Found' ? read.events[0] : undefined;
    if (!first) return undefined;
    const created = decodeRecorded(signingKey.codec, first);
    if (created.type !== 'SigningKeyCreated') throw new Error(`signing key ${keyId}: its stream does not start with its creation`);
    const signer = await deps.keys.tenantKeys.open(keyId, created.data.material, publicJwk, deps.dataKeys);
    // Destroyed (the tenant's data erased): the key signs nothing more.
    if (!signer) return undefined;
    return certifiedSigner(certificatesFromPem(pem), signer);
  };

  return {
    active: async (tenantId, role) => {
      const found = findActiveSigningKey(deps.runner.db, tenantId, role);
      const pem = found?.data['certificate_chain'];
      if (!found || typeof pem !== 'string') return undefined;
      const kept = built.get(found.id);
      if (kept && kept.revision === found.revision) return kept.identity;
      const identity = build(found.id, found.data['public_jwk'] as PublicJwk, pem);
      built.set(found.id, { revision: found.revision, identity });
      // A failure (a token that does not answer) is not kept: the next call tries again.
      identity.catch(() => {
        if (built.get(found.id)?.identity === identity) built.delete(found.id);
      });
      return identity;
    },
  };
};
