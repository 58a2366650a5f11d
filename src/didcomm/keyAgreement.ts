// The tenant's DIDComm key-agreement key: X25519, derived by HKDF from the key-encryption key and
// the tenant id under its own label, so every instance has the same key and nothing is stored
// (like the tenant's P-256 DID key, whose label differs). It is the sender key of authcrypt: a
// recipient that resolves the tenant's did:web finds it under `keyAgreement` and so knows who sent
// the message.
import { createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';

/** The fragment of the key-agreement verification method in the tenant's DID document. */
export const KEY_AGREEMENT_FRAGMENT = 'key-agreement-1';

// An X25519 PKCS#8 private key is this DER prefix followed by the 32-byte scalar (RFC 8410).
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

export type X25519PublicJwk = { readonly kty: 'OKP'; readonly crv: 'X25519'; readonly x: string };

/** The tenant's X25519 private key (any 32 bytes are a valid X25519 scalar: clamping is the curve's). */
export const tenantKeyAgreementKey = (kek: Buffer, tenantId: string): KeyObject => {
  const d = Buffer.from(hkdfSync('sha256', kek, Buffer.from(tenantId, 'utf8'), 'tenant didcomm key agreement', 32));
  return createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, d]), format: 'der', type: 'pkcs8' });
};

export const x25519PublicJwk = (key: KeyObject): X25519PublicJwk => {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'X25519', x: String(jwk.x) };
};
