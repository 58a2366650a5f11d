// Wallet-side keys and proofs shared by the test wallet's flows: P-256 key pairs, RFC 7638
// thumbprints, and DPoP proofs (RFC 9449) with every field overridable for negative tests.
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface WalletKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export const newWalletKey = async (): Promise<WalletKey> => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const { kty, crv, x, y } = await exportJWK(publicKey);
  return { privateKey, publicJwk: { kty, crv, x, y } };
};

export const thumbprint = (jwk: JWK): Promise<string> => calculateJwkThumbprint(jwk, 'sha256');

export interface DpopOptions {
  readonly htm: string;
  readonly htu: string;
  readonly accessToken?: string;
  readonly jti?: string;
  readonly iat?: number;
  /** The key put in the header, when it should differ from the signing key. */
  readonly headerJwk?: JWK;
  readonly typ?: string;
}

export const dpopProof = (key: WalletKey, o: DpopOptions): Promise<string> =>
  new SignJWT({
    htm: o.htm,
    htu: o.htu,
    jti: o.jti ?? randomUUID(),
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    ...(o.accessToken === undefined ? {} : { ath: createHash('sha256').update(o.accessToken).digest('base64url') }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: o.typ ?? 'dpop+jwt', jwk: o.headerJwk ?? key.publicJwk })
    .sign(key.privateKey);
