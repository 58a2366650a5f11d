// The authorization endpoint's step (RFC 6749 section 3.1, with RFC 9126's request_uri) as a use
// case, apart from its HTTP edge (./route.ts): it spends the pushed request's request_uri and
// answers where to send the user's browser: the integrator's authentication page with a fresh,
// single-use `authorization_id`; the integrator answers with POST /authorizations/{id}/complete.
// A `dpop_jkt` here binds the code to that DPoP key as one in the pushed request does (RFC 9449
// section 10); naming another key than the pushed request did is refused.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { offerAtIssuer, offerStream, type Command, type DomainError } from '../../../streams/offer.js';
import { logRef } from '../../../streams/kernel.js';
import type { Config } from '../../config/config.js';
import { handleCommand, type EventMetadata } from '../../eventstore/handle.js';
import { newOfferSecret } from '../codes.js';
import type { AtIssuer, IssuanceContext } from '../context.js';
import type { AuthorizeParameterInvalid, StartRequest } from './request.js';

/** What the authorization step uses of the issuance feature. */
export type AuthorizePorts = Pick<IssuanceContext, 'store' | 'log' | 'now'> & AtIssuer & { readonly config: Pick<Config, 'authorizationTtlSeconds'> };

export type AuthorizeError =
  | AuthorizeParameterInvalid
  | { readonly _tag: 'AuthorizeClientMismatch' }
  | { readonly _tag: 'AuthorizeDpopKeyMismatch' }
  | { readonly _tag: 'OfferEndedOrAuthorized' }
  | { readonly _tag: 'RequestUriUnknown' };

const refusal = (error: DomainError): AuthorizeError => {
  switch (error._tag) {
    case 'ClientMismatch':
      return { _tag: 'AuthorizeClientMismatch' };
    case 'DpopKeyMismatch':
      return { _tag: 'AuthorizeDpopKeyMismatch' };
    case 'AlreadyAuthorized':
    case 'OfferEnded':
    case 'OfferHasExpired':
      return { _tag: 'OfferEndedOrAuthorized' };
    case 'OfferExists':
    case 'OfferNotFound':
    case 'AccessTokenUnknown':
    case 'PreAuthorizedCodeUsed':
    case 'TxCodeNotExpected':
    case 'TxCodeRequired':
    case 'NotAuthorizationCodeOffer':
    case 'CredentialConfigurationNotOffered':
    case 'RequestUriUnknown':
    case 'AuthorizationUnknown':
    case 'AuthorizationEnded':
    case 'ClaimsRequired':
    case 'ClaimsDiffer':
    case 'AuthorizationCodeUnknown':
    case 'RedirectUriMismatch':
    case 'CodeVerifierMismatch':
      return { _tag: 'RequestUriUnknown' };
  }
};

/** Starts the authorization of the pushed request: where the browser goes next. */
export const startAuthorization = async (ports: AuthorizePorts, request: StartRequest, metadata: EventMetadata): Promise<Either<AuthorizeError, { readonly redirectTo: string }>> => {
  const now = ports.now();
  const { offerId } = request.requestUri;
  const authorizationId = newOfferSecret(offerId);
  const start: Command = {
    type: 'StartAuthorization',
    data: {
      offerId,
      requestUriHash: request.requestUri.hash,
      clientId: request.clientId,
      authorizationIdHash: authorizationId.hash,
      dpopJkt: request.dpopJkt,
      expiresAt: new Date(now.getTime() + ports.config.authorizationTtlSeconds * 1000).toISOString(),
      at: now.toISOString(),
    },
  };
  const result = await handleCommand(ports.store, offerAtIssuer(ports.issuer.recorded), offerStream(offerId), start, { commandId: randomUUID(), metadata });
  if (isLeft(result)) {
    switch (result.left.kind) {
      case 'domain':
        return left(refusal(result.left.error));
      case 'store':
        return left({ _tag: 'RequestUriUnknown' });
    }
  }
  const state = result.right.state;
  if (state.status === 'none' || state.grant.grant !== 'authorization_code') throw new Error('an authorization started on an offer without the authorization code grant');
  const target = new URL(state.grant.authenticationUrl);
  target.searchParams.set('authorization_id', authorizationId.token);
  ports.log.info('authorization started', { offerRef: logRef(offerId) });
  return right({ redirectTo: target.toString() });
};
