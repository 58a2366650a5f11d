// Tenants' own signing keys (issue 38, streams/signingKey.ts) in the deployment's key store. The
// file store makes the key in memory and seals its private part with the key's own data key
// (src/crypto/dataKeys.ts, owner `signingkey.<key id>`): it lives only sealed, inside the key's
// first event, and destroying the data key destroys it. A PKCS#11 token makes it inside
// (src/crypto/pkcs11/tenantKeys.ts); the events record its label.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { SIGNING_KEY_PRIVATE, signingKeyOwner, type KeyMaterial, type PublicJwk, type SigningKeyRole } from '../../streams/signingKey.js';
import { openFor, sealFor, type DataKeys } from './dataKeys.js';
import { keySigner, type EcSigner } from './signer.js';

/** Which tenant's key of which role, under the id of its signing-key resource. */
export interface TenantKeyName {
  readonly tenantId: string;
  readonly keyId: string;
  readonly role: SigningKeyRole;
}

/** Where a key is: what destroying it needs (the envelope's `key_store` and `token_label` say it). */
export type KeyLocation = { readonly store: 'file' } | { readonly store: 'pkcs11'; readonly label: string };

/** A tenant key the store has just made: its signer, and what its first event records. */
export interface TenantKey {
  readonly signer: EcSigner;
  readonly publicJwk: PublicJwk;
  readonly material: KeyMaterial;
}

/** Tenants' keys in a key store (KeyStore `tenantKeys`). */
export interface TenantKeyStore {
  /** Makes a new P-256 key. */
  generate(name: TenantKeyName, dataKeys: DataKeys): Promise<TenantKey>;
  /** The signer of a key the store made; undefined once it is destroyed. */
  open(keyId: string, material: KeyMaterial, publicJwk: PublicJwk, dataKeys: DataKeys): Promise<EcSigner | undefined>;
  /** Destroys the key for good (its data key, or its token objects); again is a no-op. */
  destroy(keyId: string, where: KeyLocation, dataKeys: DataKeys): Promise<void>;
}

/** The P-256 public JWK with its literal members, as the events record it. */
export const publicJwkOf = (signer: EcSigner): PublicJwk => {
  const { x, y } = signer.publicJwk;
  if (!x || !y) throw new Error('a signer without a P-256 public key');
  return { kty: 'EC', crv: 'P-256', x, y };
};

/** KEY_STORE=file: keys sealed into their events. */
export const sealedTenantKeys: TenantKeyStore = {
  async generate({ keyId }, dataKeys) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { d } = privateKey.export({ format: 'jwk' });
    if (!d) throw new Error('a P-256 key without d');
    const issued = await dataKeys.issue(signingKeyOwner(keyId));
    if (isLeft(issued)) throw new Error(`the data key of signing key ${keyId} was not issued: ${issued.left._tag}`);
    const signer = keySigner(privateKey);
    return { signer, publicJwk: publicJwkOf(signer), material: { store: 'file', sealedKey: sealFor(issued.right, SIGNING_KEY_PRIVATE, { d }) } };
  },
  async open(keyId, material, publicJwk, dataKeys) {
    if (material.store !== 'file') throw new Error(`signing key ${keyId} is in a PKCS#11 token, and the key store is the file store`);
    const dataKey = await dataKeys.find(signingKeyOwner(keyId));
    if (!dataKey) return undefined;
    const { d } = openFor(dataKey, SIGNING_KEY_PRIVATE, material.sealedKey);
    return keySigner(createPrivateKey({ key: { ...publicJwk, d }, format: 'jwk' }));
  },
  destroy: (keyId, _material, dataKeys) => dataKeys.destroy(signingKeyOwner(keyId)),
};
