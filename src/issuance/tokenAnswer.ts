// What the token endpoint does alike for either grant (RFC 6749 section 5.1, RFC 9449 sections 5
// and 8): the request's DPoP proof, and the answer: never cached, a DPoP-bound access token that
// lasts as long as its offer, and the DPoP nonce the wallet's next proof carries.
import type { Context } from 'koa';
import { PATHS, type IssuanceContext } from './context.js';
import { verifyPostDpopProof, type DpopCheck } from './dpop.js';
import { currentDpopNonce } from './dpopNonce.js';
import { invalidRequest, OAuthError } from '../http/oauthError.js';
import type { IssuanceSecrets } from './secrets.js';

/**
 * The token request's DPoP proof. Bearer tokens are not issued: a request without a proof is
 * malformed, one with a bad proof refused, and one without the nonce `acceptsNonce` wants is told
 * the current one (`use_dpop_nonce`) to try again with.
 */
export const tokenRequestDpopProof = async (
  issuance: Pick<IssuanceContext, 'store' | 'config' | 'secrets'>,
  http: Context,
  now: Date,
  acceptsNonce?: DpopCheck['acceptsNonce'],
) => {
  const dpop = await verifyPostDpopProof(issuance, http.headers, PATHS.token, now, acceptsNonce);
  if (dpop.ok) return dpop;
  if (dpop.useNonce) throw new OAuthError(400, 'use_dpop_nonce', dpop.reason, { 'DPoP-Nonce': currentDpopNonce(issuance.secrets, now) });
  throw dpop.missing ? invalidRequest(dpop.reason) : new OAuthError(400, 'invalid_dpop_proof', dpop.reason);
};

export const answerToken = (
  http: Context,
  secrets: Pick<IssuanceSecrets, 'mac'>,
  now: Date,
  token: { readonly accessToken: string; readonly expiresAt: string },
  extra: Readonly<Record<string, unknown>> = {},
): void => {
  http.set('Cache-Control', 'no-store');
  http.set('Pragma', 'no-cache');
  http.set('DPoP-Nonce', currentDpopNonce(secrets, now));
  http.body = {
    access_token: token.accessToken,
    token_type: 'DPoP',
    expires_in: Math.max(1, Math.floor((Date.parse(token.expiresAt) - now.getTime()) / 1000)),
    ...extra,
  };
};
