// Wallet-side keys and proofs shared by the wallet's flows: P-256 key pairs, RFC 7638
// thumbprints, and DPoP proofs (RFC 9449) with every field overridable for negative tests.
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface WalletKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

const publicPart = ({ kty, crv, x, y }: JWK): JWK => ({ kty, crv, x, y });

export const newWalletKey = async (): Promise<WalletKey> => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: publicPart(await exportJWK(publicKey)) };
};

/** The private JWK of a key, to keep it in the wallet file. */
export const exportWalletKey = (key: WalletKey): Promise<JWK> => exportJWK(key.privateKey);

/** A key kept as a private JWK; throws unless it is a P-256 private key. */
export const importWalletKey = async (jwk: JWK): Promise<WalletKey> => {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string') throw new Error('not a P-256 private key');
  const privateKey = await importJWK({ ...jwk, kty: 'EC' as const }, 'ES256', { extractable: true });
  return { privateKey, publicJwk: publicPart(jwk) };
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
  /** The server's DPoP nonce (RFC 9449 section 8), when it asked for one. */
  readonly nonce?: string;
}

export const dpopProof = (key: WalletKey, o: DpopOptions): Promise<string> =>
  new SignJWT({
    htm: o.htm,
    htu: o.htu,
    jti: o.jti ?? randomUUID(),
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    ...(o.accessToken === undefined ? {} : { ath: createHash('sha256').update(o.accessToken).digest('base64url') }),
    ...(o.nonce === undefined ? {} : { nonce: o.nonce }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: o.typ ?? 'dpop+jwt', jwk: o.headerJwk ?? key.publicJwk })
    .sign(key.privateKey);
