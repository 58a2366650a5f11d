// The key proof of a credential request (OpenID4VCI appendix F.1, proof type `jwt`): signed by
// the key the credential is to be bound to, which it carries as `jwk`; addressed to this issuer;
// fresh; and holding a c_nonce from this issuer's nonce endpoint, spent here so it is used once.
import { decodeProtectedHeader, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import type { Config } from '../config/config.js';
import type { AtIssuer, IssuanceContext } from './context.js';
import { spendCNonce } from './nonce/cNonce.js';

export type KeyProofResult =
  | { readonly ok: true; readonly jwk: JWK }
  | { readonly ok: false; readonly error: 'invalid_proof' | 'invalid_nonce'; readonly reason: string };

const SKEW_SECONDS = 5;

const invalidProof = (reason: string): KeyProofResult => ({ ok: false, error: 'invalid_proof', reason });

export const verifyKeyProof = async (
  issuance: Pick<IssuanceContext, 'store' | 'secrets'> & AtIssuer & { readonly config: Pick<Config, 'proofMaxAgeSeconds'> },
  proof: string,
  now: Date,
): Promise<KeyProofResult> => {
  let payload: Record<string, unknown>;
  try {
    const header = decodeProtectedHeader(proof);
    if (header.typ !== 'openid4vci-proof+jwt') return invalidProof('The key proof must have typ openid4vci-proof+jwt.');
    if (header.alg !== 'ES256') return invalidProof('The key proof must be signed with ES256.');
    if (header.jwk === undefined) return invalidProof('The key proof must carry the key to bind as jwk.');
    payload = (await jwtVerify(proof, EmbeddedJWK, { typ: 'openid4vci-proof+jwt', algorithms: ['ES256'] })).payload;
  } catch {
    return invalidProof('The key proof is malformed or its signature does not verify with its jwk.');
  }
  const aud = payload['aud'];
  const audiences = Array.isArray(aud) ? aud : [aud];
  const { identifier } = issuance.issuer;
  if (!audiences.includes(identifier)) return invalidProof(`The key proof's aud must be the credential issuer ${identifier}.`);
  const iat = payload['iat'];
  const nowSeconds = now.getTime() / 1000;
  if (typeof iat !== 'number' || iat > nowSeconds + SKEW_SECONDS || iat < nowSeconds - issuance.config.proofMaxAgeSeconds) {
    return invalidProof('The key proof is not fresh: check its iat.');
  }
  const nonce = payload['nonce'];
  if (typeof nonce !== 'string') return { ok: false, error: 'invalid_nonce', reason: 'The key proof must carry a c_nonce from the nonce endpoint.' };
  const rejected = await spendCNonce(issuance.store, issuance.secrets, nonce, now, issuance.issuer.recorded);
  if (rejected !== undefined) {
    return { ok: false, error: 'invalid_nonce', reason: `The c_nonce is ${rejected === 'used' ? 'already used' : rejected}; get a fresh one from the nonce endpoint.` };
  }
  return { ok: true, jwk: decodeProtectedHeader(proof).jwk! };
};
