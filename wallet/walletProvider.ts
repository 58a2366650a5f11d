// A local wallet provider for the simulator and the tests: a CA the connector is told to trust
// (WALLET_PROVIDER_TRUST_ANCHORS) and a signing certificate below it that issues wallet
// attestations (`oauth-client-attestation+jwt`, x5c without the anchor) about a wallet instance's
// key. The instance key signs the PoP for each request. Every field can be overridden, so tests can
// build the attestations a connector must refuse.
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { exportJWK, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createCertificateAuthority, createLeafCertificate, x5cOf } from '../src/crypto/certificates.js';
import { x509 } from '../src/crypto/x509.js';
import type { WalletKey } from './keys.js';

export interface WalletProvider {
  /** The provider's root certificate, base64 DER: what WALLET_PROVIDER_TRUST_ANCHORS lists. */
  readonly anchor: string;
  /** The certificate that signs attestations, below the root. */
  readonly certificate: x509.X509Certificate;
  readonly privateKey: CryptoKey;
  readonly issuer: string;
}

const ISSUER = 'https://wallet-provider.example';

export const createWalletProvider = async (options: { name?: string; notAfter?: Date } = {}): Promise<WalletProvider> => {
  const name = options.name ?? 'Test Wallet Provider';
  const root = await createCertificateAuthority({ commonName: `${name} CA` });
  const signer = await createLeafCertificate(root, { commonName: name, ...(options.notAfter ? { notBefore: new Date(options.notAfter.getTime() - 86_400_000), notAfter: options.notAfter } : {}) });
  return { anchor: Buffer.from(root.certificate.rawData).toString('base64'), certificate: signer.certificate, privateKey: signer.keys.privateKey, issuer: ISSUER };
};

const ProviderFile = t.type({ version: t.literal(1), anchor: t.string, certificate: t.string, private_key: t.record(t.string, t.unknown) });

/**
 * The simulator's wallet provider, kept in `path` (mode 0600: it holds a private key) and made on
 * first use; its `anchor` is what a connector lists in WALLET_PROVIDER_TRUST_ANCHORS.
 */
export const localWalletProvider = async (path: string): Promise<WalletProvider> => {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (text === undefined) {
    const provider = await createWalletProvider({ name: 'Local Wallet Provider (simulator)' });
    const content = { version: 1, anchor: provider.anchor, certificate: x5cOf([provider.certificate])[0], private_key: await exportJWK(provider.privateKey) };
    await writeFile(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return provider;
  }
  const content = ProviderFile.decode(JSON.parse(text));
  if (isLeft(content)) throw new Error(`${path} is not a wallet provider file`);
  return {
    anchor: content.right.anchor,
    certificate: new x509.X509Certificate(Buffer.from(content.right.certificate, 'base64')),
    privateKey: (await importJWK(content.right.private_key as JWK, 'ES256')) as CryptoKey,
    issuer: ISSUER,
  };
};

export interface AttestationOptions {
  readonly clientId: string;
  /** The wallet instance key the attestation binds (`cnf.jwk`). */
  readonly instanceJwk: JWK;
  readonly walletName?: string;
  /** Seconds since the epoch; default one hour from now. */
  readonly exp?: number;
  readonly typ?: string;
}

export const walletAttestation = (provider: WalletProvider, o: AttestationOptions): Promise<string> =>
  new SignJWT({
    iss: provider.issuer,
    sub: o.clientId,
    cnf: { jwk: o.instanceJwk },
    wallet_name: o.walletName ?? 'Connector test wallet',
    iat: Math.floor(Date.now() / 1000),
    exp: o.exp ?? Math.floor(Date.now() / 1000) + 3600,
  })
    .setProtectedHeader({ alg: 'ES256', typ: o.typ ?? 'oauth-client-attestation+jwt', x5c: x5cOf([provider.certificate]) })
    .sign(provider.privateKey);

export interface PopOptions {
  readonly clientId: string;
  /** The issuer identifier of the authorization server. */
  readonly audience: string;
  readonly iat?: number;
  readonly jti?: string;
}

/** The attestation's proof of possession, signed by the instance key (draft-07 shape, with `iss`). */
export const attestationPop = (instanceKey: WalletKey, o: PopOptions): Promise<string> =>
  new SignJWT({ iss: o.clientId, aud: o.audience, jti: o.jti ?? randomUUID(), iat: o.iat ?? Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation-pop+jwt' })
    .sign(instanceKey.privateKey);
