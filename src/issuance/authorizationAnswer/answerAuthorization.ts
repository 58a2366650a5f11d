// The integrator's side of the authorization code flow (management API) as use cases, apart from
// their HTTP edge (./routes.ts): what a pending authorization asks (the wallet, the configuration,
// whether claims are still needed), and the integrator's answer: the claims (checked against the
// configuration, sealed with the offer's data key; compared with the offer's own by the decider)
// or a denial. The result is where to send the browser: the wallet's redirect_uri with the code,
// its state and `iss` (RFC 9207), or the error. A denial fails the offer and destroys its claims.
// Another tenant's authorization is as unknown as a made-up one.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { offer, offerStream, startedAuthorization, type Authorization, type Command, type DomainError, type EndedOffer, type OfferState, type OpenOffer } from '../../../streams/offer.js';
import { CLAIMS } from '../../../streams/offerFacts.js';
import { JsonObject } from '../../../streams/resource.js';
import { openFor, sealFor } from '../../crypto/dataKeys.js';
import { logRef, sameHash } from '../../../streams/kernel.js';
import { handleCommand, loadStream, type EventMetadata, type Loaded } from '../../eventstore/handle.js';
import type { FieldError } from '../../http/problem.js';
import { validateClaims } from '../claims.js';
import { newOfferSecret, parseOfferSecret } from '../codes.js';
import type { IssuanceContext } from '../context.js';
import type { Issuers } from '../issuer.js';
import { purgeClaims } from '../offerEnd.js';
import type { CompleteBody } from './request.js';

/** Lifetime of an authorization code: the browser's redirect and the wallet's token request follow at once. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 120;

/** What answering an authorization uses of the issuance feature. */
export type AnswerPorts = Pick<IssuanceContext, 'store' | 'dataKeys' | 'log' | 'now'> & { readonly issuers: Pick<Issuers, 'identifierOf' | 'configurationOf'> };

export type AnswerError =
  | { readonly _tag: 'AuthorizationNotFound' }
  | { readonly _tag: 'ClaimsOrError' }
  | { readonly _tag: 'ClaimsInvalid'; readonly errors: readonly FieldError[] }
  | { readonly _tag: 'ClaimsRequired' }
  | { readonly _tag: 'ClaimsDiffer' }
  | { readonly _tag: 'AuthorizationEnded' }
  | { readonly _tag: 'OfferEnded' }
  | { readonly _tag: 'OfferChanged' };

/** An offer of the authorization code flow whose authorization was started, and that authorization. */
export interface StartedAuthorization {
  readonly offerId: string;
  readonly hash: string;
  readonly loaded: Loaded<OfferState>;
  readonly state: OpenOffer | EndedOffer;
  readonly authorization: Authorization;
  readonly outcome: 'pending' | 'completed' | 'denied';
}

/** The tenant's authorization this id names, with the stream as loaded. */
export const findAuthorization = async (ports: Pick<IssuanceContext, 'store'>, tenantId: string, id: string): Promise<Either<AnswerError, StartedAuthorization>> => {
  const unknown = left({ _tag: 'AuthorizationNotFound' } as const);
  const parsed = parseOfferSecret(id);
  if (parsed === undefined) return unknown;
  const loaded = await loadStream(ports.store, offer, offerStream(parsed.offerId));
  if (isLeft(loaded)) return unknown;
  const state = loaded.right.state;
  if (state.status === 'none' || state.tenantId !== tenantId) return unknown;
  const started = state.grant.grant === 'authorization_code' ? startedAuthorization(state.grant) : null;
  if (started === null || !sameHash(started.authorization.authorizationIdHash, parsed.hash)) return unknown;
  return right({ offerId: parsed.offerId, hash: parsed.hash, loaded: loaded.right, state, ...started });
};

const refusal = (error: DomainError): AnswerError => {
  switch (error._tag) {
    case 'ClaimsRequired':
    case 'ClaimsDiffer':
    case 'AuthorizationEnded':
      return { _tag: error._tag };
    case 'OfferEnded':
    case 'OfferHasExpired':
      return { _tag: 'OfferEnded' };
    case 'OfferExists':
    case 'OfferNotFound':
    case 'AccessTokenUnknown':
    case 'PreAuthorizedCodeUsed':
    case 'TxCodeNotExpected':
    case 'TxCodeRequired':
    case 'NotAuthorizationCodeOffer':
    case 'CredentialConfigurationNotOffered':
    case 'AlreadyAuthorized':
    case 'RequestUriUnknown':
    case 'ClientMismatch':
    case 'AuthorizationUnknown':
    case 'AuthorizationCodeUnknown':
    case 'RedirectUriMismatch':
    case 'CodeVerifierMismatch':
    case 'DpopKeyMismatch':
      return { _tag: 'AuthorizationNotFound' };
  }
};

/**
 * The integrator's answer to a started authorization: where to send the browser. `readAnswer` reads
 * the body once the authorization is found (an unknown one is refused before its body is read).
 */
export const answerAuthorization = async (
  ports: AnswerPorts,
  tenantId: string,
  authorizationId: string,
  readAnswer: () => Promise<CompleteBody>,
  metadata: EventMetadata,
): Promise<Either<AnswerError, { readonly redirectTo: string }>> => {
  const found = await findAuthorization(ports, tenantId, authorizationId);
  if (isLeft(found)) return found;
  const { offerId, hash, loaded, state, authorization } = found.right;
  const body = await readAnswer();
  const now = ports.now();
  const { request } = authorization;
  const redirect = new URL(request.redirectUri);
  if (body.error !== undefined && body.claims !== undefined) return left({ _tag: 'ClaimsOrError' });
  let command: Command;
  if (body.error !== undefined) {
    command = { type: 'DenyAuthorization', data: { offerId, authorizationIdHash: hash, error: body.error, at: now.toISOString() } };
    redirect.searchParams.set('error', body.error);
    if (body.error_description !== undefined) redirect.searchParams.set('error_description', body.error_description);
  } else {
    // The configuration the offer is issued with (a tenant's own issuer: at the revision it recorded).
    const configuration = ports.issuers.configurationOf(state);
    const errors = configuration ? validateClaims(configuration, body.claims, 'body.claims') : [];
    if (body.claims !== undefined && errors.length > 0) return left({ _tag: 'ClaimsInvalid', errors });
    const key = await ports.dataKeys.find(offerId);
    if (!key) return left({ _tag: 'OfferEnded' });
    const given = body.claims === undefined ? null : body.claims;
    // Validated above when the offer's configuration is still there; without it, still only an object is taken.
    if (given !== null && !JsonObject.is(given)) return left({ _tag: 'ClaimsInvalid', errors: [{ location: 'body.claims', message: 'expected an object of claim names to values', value: given }] });
    const code = newOfferSecret(offerId);
    command = {
      type: 'CompleteAuthorization',
      data: {
        offerId,
        authorizationIdHash: hash,
        claims: given === null ? null : { given, sealed: sealFor(key, CLAIMS, given) },
        offerClaims: state.claims === null ? null : openFor(key, CLAIMS, state.claims),
        codeHash: code.hash,
        codeExpiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000).toISOString(),
        at: now.toISOString(),
      },
    };
    redirect.searchParams.set('code', code.token);
  }
  if (request.state !== null) redirect.searchParams.set('state', request.state);
  // RFC 9207: the issuer the wallet pushed its request to, the one the offer was made at.
  redirect.searchParams.set('iss', ports.issuers.identifierOf(state));
  const result = await handleCommand(ports.store, offer, offerStream(offerId), command, { commandId: randomUUID(), metadata, loaded, retries: 1 });
  if (isLeft(result)) {
    switch (result.left.kind) {
      case 'domain':
        return left(refusal(result.left.error));
      case 'store':
        return left({ _tag: 'OfferChanged' });
    }
  }
  if (command.type === 'DenyAuthorization') {
    ports.log.info('authorization denied', { offerRef: logRef(offerId) });
    await purgeClaims(ports, offerId, metadata);
  } else ports.log.info('authorization completed', { offerRef: logRef(offerId) });
  return right({ redirectTo: redirect.toString() });
};
