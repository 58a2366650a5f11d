// The tenant's did:web document (the use cases, no HTTP). `did:web:<PUBLIC_URL host>:tenants:<tenant
// id>` resolves (by the did:web rules) to `{PUBLIC_URL}/tenants/<tenant id>/did.json`, served by
// the public listener (src/resources/tenantDid.ts). Its keys, a P-256 key and the DIDComm
// key-agreement key (X25519, src/didcomm/keyAgreement.ts), are derived (HKDF, each under its own
// label) from the key-encryption key and the tenant id: every instance derives the same keys, and
// nothing is stored.
import { createECDH, hkdfSync } from 'node:crypto';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { findTenant } from '../../projections/tenants.js';
import { KEY_AGREEMENT_FRAGMENT, tenantKeyAgreementKey, x25519PublicJwk } from '../didcomm/keyAgreement.js';
import type { Json } from '../eventstore/port.js';
import type { Sqlite } from '../sqlite/connection.js';

// The order of the P-256 group: a private scalar must be in [1, n-1].
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/** The tenant's public P-256 key as a JWK. Nothing signs with the private half yet. */
const tenantPublicJwk = (kek: Buffer, tenantId: string): { kty: string; crv: string; x: string; y: string } => {
  for (let counter = 0; counter < 16; counter++) {
    const d = Buffer.from(hkdfSync('sha256', kek, Buffer.from(tenantId, 'utf8'), `tenant did key ${counter}`, 32));
    const scalar = BigInt(`0x${d.toString('hex')}`);
    if (scalar === 0n || scalar >= P256_ORDER) continue;
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(d);
    const point = ecdh.getPublicKey();
    return { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') };
  }
  throw new Error('no P-256 scalar derived');
};

/** did:web of a tenant under PUBLIC_URL: host (with its port percent-encoded), then path segments. */
export const tenantDid = (publicUrl: string, tenantId: string): string => {
  const url = new URL(publicUrl);
  const segments = url.pathname.split('/').filter((s) => s !== '').map(encodeURIComponent);
  return ['did:web', encodeURIComponent(url.host), ...segments, 'tenants', tenantId].join(':');
};

/** The tenant's did:web document: its P-256 key and its DIDComm key-agreement key. */
export const didDocument = (publicUrl: string, kek: Buffer, tenantId: string): Json => {
  const id = tenantDid(publicUrl, tenantId);
  const key = `${id}#key-1`;
  const keyAgreement = `${id}#${KEY_AGREEMENT_FRAGMENT}`;
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id,
    verificationMethod: [
      { id: key, type: 'JsonWebKey2020', controller: id, publicKeyJwk: tenantPublicJwk(kek, tenantId) },
      { id: keyAgreement, type: 'JsonWebKey2020', controller: id, publicKeyJwk: x25519PublicJwk(tenantKeyAgreementKey(kek, tenantId)) },
    ],
    authentication: [key],
    assertionMethod: [key],
    keyAgreement: [keyAgreement],
  };
};

/** The tenant a DID document is asked for does not exist: 404. */
export type TenantNotFound = { readonly _tag: 'TenantNotFound' };

export interface PublishedDidDeps {
  /** The read models: which tenants exist. */
  readonly db: Sqlite;
  readonly publicUrl: string;
  readonly kek: Buffer;
}

/** A tenant's DID document as anyone may resolve it; TenantNotFound for an id that is no tenant's. */
export const publishedDidDocument = (deps: PublishedDidDeps, tenantId: string): Either<TenantNotFound, Json> =>
  findTenant(deps.db, tenantId) ? right(didDocument(deps.publicUrl, deps.kek, tenantId)) : left({ _tag: 'TenantNotFound' });
