// The integrator's side of the authorization code flow (management API, scope `connector`): the
// authentication page it runs receives `authorization_id`, asks GET /authorizations/{id} what the
// wallet wants, authenticates the user, and answers POST /authorizations/{id}/complete with the
// claims (or a denial). The answer is where to send the browser: the wallet's redirect_uri with
// the code, its state and `iss` (RFC 9207), or the error. A denial fails the offer.
import Router from '@koa/router';
import * as t from 'io-ts';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { offer, offerStream, startedAuthorization, type Authorization, type Command, type DomainError, type EndedOffer, type OfferState, type OpenOffer } from '../../streams/offer.js';
import { logRef, sameHash } from '../../streams/kernel.js';
import { handleCommand, loadStream, type Loaded } from '../eventstore/handle.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { withMessage } from '../http/codecs.js';
import { conflict, HttpError, invalidValues, notFound, problem, type Problem } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { requestIdOf } from '../log.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { validateClaims } from './claims.js';
import { newOfferSecret, parseOfferSecret } from './codes.js';
import type { IssuanceContext } from './context.js';
import { purgeClaims } from './offerEnd.js';

/** Lifetime of an authorization code: the browser's redirect and the wallet's token request follow at once. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 120;
const BODY_LIMIT = 64 * 1024;

// Either claims (or nothing, when the offer has them) or a denial.
const CompleteBody = t.partial({
  claims: t.unknown,
  error: withMessage(t.literal('access_denied'), 'expected "access_denied"'),
  error_description: withMessage(t.refinement(t.string, (s) => s.length <= 300), 'expected a string of at most 300 characters'),
});

/** An offer of the authorization code flow whose authorization was started, and that authorization. */
interface Started {
  readonly state: OpenOffer | EndedOffer;
  readonly authorization: Authorization;
  readonly outcome: 'pending' | 'completed' | 'denied';
}

const unknownAuthorization = () => new HttpError(notFound('No authorization with this id exists for your tenant, or it has expired.'));

/** The tenant's authorization this id names, with the stream as loaded; 404 for any other. */
const findAuthorization = async (issuance: Pick<IssuanceContext, 'store'>, tenantId: string, id: string): Promise<Started & { offerId: string; hash: string; loaded: Loaded<OfferState> }> => {
  const parsed = parseOfferSecret(id);
  if (parsed === undefined) throw unknownAuthorization();
  const loaded = await loadStream(issuance.store, offer, offerStream(parsed.offerId));
  if (isLeft(loaded)) throw unknownAuthorization();
  const state = loaded.right.state;
  // Another tenant's authorization is as unknown as a made-up one.
  if (state.status === 'none' || state.tenantId !== tenantId) throw unknownAuthorization();
  const started = state.grant.grant === 'authorization_code' ? startedAuthorization(state.grant) : null;
  if (started === null || !sameHash(started.authorization.authorizationIdHash, parsed.hash)) throw unknownAuthorization();
  return { offerId: parsed.offerId, hash: parsed.hash, loaded: loaded.right, state, ...started };
};

const refusal = (error: DomainError): Problem => {
  switch (error._tag) {
    case 'ClaimsRequired':
      return invalidValues([{ location: 'body.claims', message: 'required: the offer was created without claims', value: null }]);
    case 'ClaimsDiffer':
      return conflict('The offer was created with other claims; complete it with the same claims or none.');
    case 'AuthorizationEnded':
      return conflict('This authorization was already completed or denied.');
    case 'OfferEnded':
    case 'OfferHasExpired':
      return problem(409, '/problems/offer_ended', 'Offer ended', 'The offer has ended; create a new one.');
    default:
      return notFound('No authorization with this id exists for your tenant, or it has expired.');
  }
};

export const authorizationsRouter = (issuance: IssuanceContext): Router => {
  const router = new Router();
  router.get('/authorizations/:authorization_id', requireScope('connector'), async (http) => {
    const { offerId, state, authorization, outcome } = await findAuthorization(issuance, principalOf(http).tenantId, http.params['authorization_id'] ?? '');
    const { wallet } = authorization.request;
    http.body = {
      authorization_id: http.params['authorization_id'],
      offer_id: offerId,
      status: outcome,
      credential_configuration_ids: [state.credentialConfigurationId],
      claims_required: state.claims === null,
      client_id: wallet.clientId,
      wallet_name: wallet.walletName,
      wallet_provider: wallet.walletProvider,
      expires_at: authorization.expiresAt,
    };
  });

  router.post('/authorizations/:authorization_id/complete', requireScope('connector'), async (http) => {
    const principal = principalOf(http);
    const id = http.params['authorization_id'] ?? '';
    const { offerId, hash, loaded, state, authorization } = await findAuthorization(issuance, principal.tenantId, id);
    const body = decode(CompleteBody, await readJson(http, { limitBytes: BODY_LIMIT }), 'body');
    const now = issuance.now();
    const metadata = { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(http) };
    const { request } = authorization;
    const redirect = new URL(request.redirectUri);
    if (body.error !== undefined && body.claims !== undefined) {
      throw new HttpError(invalidValues([{ location: 'body', message: 'send claims or error, not both', value: null }]));
    }
    let command: Command;
    if (body.error !== undefined) {
      command = { type: 'DenyAuthorization', data: { offerId, authorizationIdHash: hash, error: body.error, at: now.toISOString() } };
      redirect.searchParams.set('error', body.error);
      if (body.error_description !== undefined) redirect.searchParams.set('error_description', body.error_description);
    } else {
      const configuration = issuance.configurations.get(state.credentialConfigurationId);
      const errors = configuration ? validateClaims(configuration, body.claims, 'body.claims') : [];
      if (body.claims !== undefined && errors.length > 0) throw new HttpError(invalidValues(errors));
      const key = await issuance.dataKeys.find(offerId);
      if (!key) throw new HttpError(refusal({ _tag: 'OfferEnded', offerId, status: 'FAILED' }));
      const given = body.claims === undefined ? null : (body.claims as Json);
      const code = newOfferSecret(offerId);
      command = {
        type: 'CompleteAuthorization',
        data: {
          offerId,
          authorizationIdHash: hash,
          claims: given === null ? null : { given, sealed: key.seal(given, 'claims') },
          offerClaims: state.claims === null ? null : key.open(state.claims, 'claims'),
          codeHash: code.hash,
          codeExpiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000).toISOString(),
          at: now.toISOString(),
        },
      };
      redirect.searchParams.set('code', code.token);
    }
    if (request.state !== null) redirect.searchParams.set('state', request.state);
    redirect.searchParams.set('iss', issuance.config.publicUrl);
    const result = await handleCommand(issuance.store, offer, offerStream(offerId), command, { commandId: randomUUID(), metadata, loaded, retries: 1 });
    if (isLeft(result)) throw new HttpError('offerId' in result.left ? refusal(result.left) : conflict('The offer changed meanwhile; try again.'));
    if (command.type === 'DenyAuthorization') {
      issuance.log.info('authorization denied', { offerRef: logRef(offerId) });
      await purgeClaims(issuance, offerId, metadata);
    } else issuance.log.info('authorization completed', { offerRef: logRef(offerId) });
    http.set('Cache-Control', 'no-store');
    http.body = { redirect_to: redirect.toString() };
  });
  return router;
};
