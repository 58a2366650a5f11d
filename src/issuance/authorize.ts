// GET /oidc4vci/authorize?client_id&request_uri: the authorization endpoint (RFC 6749 section
// 3.1, with RFC 9126's request_uri). It spends the pushed request's request_uri and sends the
// user's browser to the integrator's authentication page with a fresh, single-use
// `authorization_id`; the integrator answers with POST /authorizations/{id}/complete. Errors are
// shown, not redirected: the redirect_uri is trusted only once the request is (RFC 6749 section 4.1.2.1).
// A `dpop_jkt` here binds the code to that DPoP key as one in the pushed request does (RFC 9449
// section 10); naming another key than the pushed request did is refused.
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { offer, offerStream, type Command, type DomainError } from '../../streams/offer.js';
import { logRef } from '../../streams/kernel.js';
import { handleCommand } from '../eventstore/handle.js';
import { requestIdOf } from '../log.js';
import { newOfferSecret, parseOfferSecret } from './codes.js';
import type { IssuanceContext } from './context.js';
import { invalidRequest, OAuthError } from '../http/oauthError.js';
import { REQUEST_URI_PREFIX } from './par.js';
import { isJwkThumbprint } from './dpop.js';


const queryValue = (http: Context, name: string): string | undefined => {
  const value = http.query[name];
  if (Array.isArray(value)) throw invalidRequest(`${name} must appear once.`);
  return value === undefined || value === '' ? undefined : value;
};

const refusal = (error: DomainError): OAuthError => {
  switch (error._tag) {
    case 'ClientMismatch':
      return invalidRequest('client_id is not the one of the pushed authorization request.');
    case 'DpopKeyMismatch':
      return invalidRequest('dpop_jkt names another key than the pushed authorization request bound the code to.');
    case 'AlreadyAuthorized':
    case 'OfferEnded':
    case 'OfferHasExpired':
      return invalidRequest('The offer has ended or was already authorized.');
    default:
      return invalidRequest('request_uri is unknown, expired or already used.');
  }
};

export const authorizeEndpoint = (issuance: IssuanceContext) => async (http: Context): Promise<void> => {
  const clientId = queryValue(http, 'client_id');
  if (clientId === undefined) throw invalidRequest('client_id is required.');
  const requestUri = queryValue(http, 'request_uri');
  // HAIP: authorization requests are pushed; parameters sent here instead of a request_uri are not accepted.
  if (requestUri === undefined) throw invalidRequest('request_uri is required: push the authorization request first.');
  const parsed = requestUri.startsWith(REQUEST_URI_PREFIX) ? parseOfferSecret(requestUri.slice(REQUEST_URI_PREFIX.length)) : undefined;
  if (parsed === undefined) throw invalidRequest('request_uri is unknown, expired or already used.');
  const dpopJkt = queryValue(http, 'dpop_jkt');
  if (dpopJkt !== undefined && !isJwkThumbprint(dpopJkt)) throw invalidRequest('dpop_jkt must be the base64url SHA-256 JWK thumbprint of the DPoP key.');
  const now = issuance.now();
  const authorizationId = newOfferSecret(parsed.offerId);
  const start: Command = {
    type: 'StartAuthorization',
    data: {
      offerId: parsed.offerId,
      requestUriHash: parsed.hash,
      clientId,
      authorizationIdHash: authorizationId.hash,
      dpopJkt,
      expiresAt: new Date(now.getTime() + issuance.config.authorizationTtlSeconds * 1000).toISOString(),
      at: now.toISOString(),
    },
  };
  const metadata = { actor: 'wallet', requestId: requestIdOf(http) };
  const result = await handleCommand(issuance.store, offer, offerStream(parsed.offerId), start, { commandId: randomUUID(), metadata });
  if (isLeft(result)) throw 'offerId' in result.left ? refusal(result.left) : invalidRequest('request_uri is unknown, expired or already used.');
  const state = result.right.state;
  if (state.status === 'none' || state.grant.grant !== 'authorization_code') throw new Error('an authorization started on an offer without the authorization code grant');
  const target = new URL(state.grant.authenticationUrl);
  target.searchParams.set('authorization_id', authorizationId.token);
  issuance.log.info('authorization started', { offerRef: logRef(parsed.offerId) });
  http.set('Cache-Control', 'no-store');
  http.redirect(target.toString());
};
