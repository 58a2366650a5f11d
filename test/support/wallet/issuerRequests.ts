// Wallet requests written out by hand against a given credential issuer (the deployment's or a
// tenant's own, `{PUBLIC_URL}/issuers/{tenant_id}`), for tests that send one issuer's codes,
// tokens and nonces to another: each request as a wallet sends it, nothing checked here.
import { SignJWT } from 'jose';
import { dpopProof, type WalletKey } from '../../../wallet/keys.js';
import { documentedFetch } from '../openapi.js';

const publicFetch = documentedFetch('public');

/** The pre-authorized code of the offer a `credential_offer_uri` deep link names. */
export const preAuthorizedCodeOf = async (uri: string): Promise<string> => {
  const offerUrl = new URL(uri).searchParams.get('credential_offer_uri')!;
  const offer = (await (await publicFetch(offerUrl)).json()) as { grants: Record<string, { 'pre-authorized_code': string }> };
  return offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code'];
};

/** A token request for a pre-authorized code at `issuer`, its DPoP proof for `htu`. */
export const tokenRequest = async (issuer: string, code: string, dpopKey: WalletKey, htu = `${issuer}/oidc4vci/token`) =>
  publicFetch(`${issuer}/oidc4vci/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: await dpopProof(dpopKey, { htm: 'POST', htu }) },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code }).toString(),
  });

/** A key proof of `holder` for `aud` and `nonce`. */
export const keyProof = (holder: WalletKey, aud: string, nonce: string) =>
  new SignJWT({ aud, iat: Math.floor(Date.now() / 1000), nonce }).setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.publicJwk }).sign(holder.privateKey);

/** A credential request for `pid` at `issuer` with a DPoP-bound access token. */
export const credentialRequest = async (issuer: string, accessToken: string, dpopKey: WalletKey, proof: string) =>
  publicFetch(`${issuer}/oidc4vci/credential`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `DPoP ${accessToken}`, DPoP: await dpopProof(dpopKey, { htm: 'POST', htu: `${issuer}/oidc4vci/credential`, accessToken }) },
    body: JSON.stringify({ credential_configuration_id: 'pid', proofs: { jwt: [proof] } }),
  });

/** A fresh c_nonce from `issuer`'s nonce endpoint. */
export const nonceAt = async (issuer: string): Promise<string> => ((await (await publicFetch(`${issuer}/oidc4vci/nonce`, { method: 'POST' })).json()) as { c_nonce: string }).c_nonce;
