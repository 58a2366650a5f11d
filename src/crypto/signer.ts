// The one signing abstraction of the connector's signing roles (the access certificate's key, which
// signs request objects, and the Issuer Signing Certificate's key, which signs credentials and
// status lists): a P-256 public key and an ES256 signature over given bytes, whether the private
// key is a file loaded into memory (keySigner) or lives in a PKCS#11 token (src/crypto/pkcs11/).
// The JWS (jws.ts) and COSE_Sign1 (src/mdoc/cose.ts) forms are built around its raw signature.
import { createPublicKey, KeyObject, sign, type webcrypto } from 'node:crypto';
import type { JWK } from 'jose';

export interface EcSigner {
  /** The P-256 public key: kty, crv, x, y only. */
  readonly publicJwk: JWK;
  /** ES256: ECDSA on P-256 over the SHA-256 digest of `data`; the signature as raw r||s (64 bytes). */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** The P-256 public JWK (kty, crv, x, y) of a key, public or private. */
export const p256PublicJwk = (key: KeyObject): JWK => {
  const { kty, crv, x, y } = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
  if (kty !== 'EC' || crv !== 'P-256' || !x || !y) throw new Error('the key is not a P-256 key');
  return { kty, crv, x, y };
};

/** An EcSigner over a private key held in memory (node crypto). */
export const keySigner = (privateKey: KeyObject | webcrypto.CryptoKey): EcSigner => {
  const key = privateKey instanceof KeyObject ? privateKey : KeyObject.from(privateKey);
  return {
    publicJwk: p256PublicJwk(key),
    sign: async (data) => sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }),
  };
};
