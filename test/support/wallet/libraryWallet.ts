// A wallet built on the OpenWallet Foundation's oid4vc-ts (@openid4vc/openid4vci, @openid4vc/oauth2):
// its keys live here, the protocol is the library's. Its attestation is signed by the given test
// wallet provider; it has two DPoP keys, the second for proving the wrong one.
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, type JWK } from 'jose';
import { clientAuthenticationClientAttestationJwt, createClientAttestationJwt, HashAlgorithm, Oauth2Client, type CallbackContext, type JwtSigner } from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { x5cOf } from '../../../src/crypto/certificates.js';
import { newWalletKey, thumbprint, type WalletKey } from '../../../wallet/keys.js';
import type { WalletProvider } from '../../../wallet/walletProvider.js';
import { documentedFetch } from '../openapi.js';

/** `fetched`: told each URL the library fetches, so a test can say which ones it used. */
export const libraryWallet = async (provider: WalletProvider, options: { readonly fetched?: (url: string) => void } = {}) => {
  const instanceKey = await newWalletKey();
  const dpopKey = await newWalletKey();
  const otherDpopKey = await newWalletKey();
  const holderKey = await newWalletKey();
  const keys = new Map<string, WalletKey>();
  for (const key of [instanceKey, dpopKey, otherDpopKey, holderKey]) keys.set(await thumbprint(key.publicJwk), key);
  const clientId = `wallet-${randomBytes(6).toString('hex')}`;

  const signJwt: CallbackContext['signJwt'] = async (signer: JwtSigner, { header, payload }) => {
    if (signer.method === 'x5c') {
      return { jwt: await new SignJWT(payload).setProtectedHeader(header as never).sign(provider.privateKey), signerJwk: {} as never };
    }
    if (signer.method !== 'jwk') throw new Error(`no key for signer ${signer.method}`);
    const key = keys.get(await thumbprint(signer.publicJwk as JWK));
    if (!key) throw new Error('unknown signing key');
    return { jwt: await new SignJWT(payload).setProtectedHeader(header as never).sign(key.privateKey), signerJwk: signer.publicJwk };
  };
  // The attestation as oid4vc-ts builds it, signed by the test wallet provider's certificate.
  const clientAttestationJwt = await createClientAttestationJwt({
    issuer: provider.issuer,
    clientId,
    confirmation: { jwk: instanceKey.publicJwk as never },
    expiresAt: new Date(Date.now() + 3_600_000),
    additionalPayload: { wallet_name: 'oid4vc-ts wallet' },
    callbacks: { signJwt },
    signer: { method: 'x5c', alg: 'ES256', x5c: x5cOf([provider.certificate]) },
  });
  const generateRandom = (length: number) => new Uint8Array(randomBytes(length));
  const callbacks = {
    hash: (data: Uint8Array, alg: HashAlgorithm) => new Uint8Array(createHash(alg === HashAlgorithm.Sha256 ? 'sha256' : alg === HashAlgorithm.Sha384 ? 'sha384' : 'sha512').update(data).digest()),
    generateRandom,
    signJwt,
    // Every answer must be one the OpenAPI document describes.
    fetch: ((input: string | URL, init?: RequestInit) => {
      options.fetched?.(String(input));
      return documentedFetch('public')(String(input), init);
    }) as never,
    clientAuthentication: clientAuthenticationClientAttestationJwt({ clientAttestationJwt, callbacks: { signJwt, generateRandom } }),
  };
  const client = new Openid4vciClient({ callbacks });
  const oauth2 = new Oauth2Client({ callbacks });
  const signer = (key: WalletKey) => ({ method: 'jwk' as const, alg: 'ES256', publicJwk: key.publicJwk as never });
  return {
    client,
    oauth2,
    clientId,
    dpopKey,
    dpopSigner: signer(dpopKey),
    otherDpopSigner: signer(otherDpopKey),
    holderSigner: signer(holderKey),
    holderKey,
    instanceKey,
    clientAttestationJwt,
  };
};

export type LibraryWallet = Awaited<ReturnType<typeof libraryWallet>>;
