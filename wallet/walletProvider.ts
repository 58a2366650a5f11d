// A local wallet provider for the simulator and the tests: a CA the connector is told to trust
// (WALLET_PROVIDER_TRUST_ANCHORS) and a signing certificate below it that issues wallet
// attestations (`oauth-client-attestation+jwt`, x5c without the anchor) about a wallet instance's
// key. The instance key signs the PoP for each request. Every field can be overridden, so tests can
// build the attestations a connector must refuse.
import { randomUUID } from 'node:crypto';
import { SignJWT, type JWK } from 'jose';
import { createCertificateAuthority, createLeafCertificate, x5cOf, type CertifiedKey } from '../src/crypto/certificates.js';
import type { WalletKey } from './keys.js';

export interface WalletProvider {
  /** The provider's root certificate, base64 DER: what WALLET_PROVIDER_TRUST_ANCHORS lists. */
  readonly anchor: string;
  readonly signer: CertifiedKey;
  readonly issuer: string;
}

export const createWalletProvider = async (options: { name?: string; notAfter?: Date } = {}): Promise<WalletProvider> => {
  const name = options.name ?? 'Test Wallet Provider';
  const root = await createCertificateAuthority({ commonName: `${name} CA` });
  const signer = await createLeafCertificate(root, { commonName: name, ...(options.notAfter ? { notBefore: new Date(options.notAfter.getTime() - 86_400_000), notAfter: options.notAfter } : {}) });
  return { anchor: Buffer.from(root.certificate.rawData).toString('base64'), signer, issuer: 'https://wallet-provider.example' };
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
    .setProtectedHeader({ alg: 'ES256', typ: o.typ ?? 'oauth-client-attestation+jwt', x5c: x5cOf([provider.signer.certificate]) })
    .sign(provider.signer.keys.privateKey);

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
