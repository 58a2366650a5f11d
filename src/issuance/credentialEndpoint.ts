// The credential endpoint (OpenID4VCI section 8). Checks, in order, each failing with its own
// OAuth error and recording nothing: the DPoP-bound access token (read from the offer stream),
// the DPoP proof (bound to the token's key, `ath`), the request, the key proof and its c_nonce.
// Then the claims are opened, the credential's Status List entry allocated
// (src/issuance/status/allocation.ts), the credential signed, and CredentialIssued appended at the revision
// read: only if that append wins is the credential handed out, so an offer that expired meanwhile
// never issues.
import { KeysUnavailable } from '../crypto/keyStore.js';
import type { Context } from 'koa';
import * as t from 'io-ts';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { authorisedBy, offer, offerStream, type Command, type DomainError } from '../../streams/offer.js';
import { handleCommand, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { requestIdOf } from '../log.js';
import { logRef } from '../../streams/kernel.js';
import { parseOfferSecret } from './codes.js';
import { endpointUrl, PATHS, type IssuanceContext } from './context.js';
import { verifyDpopProof } from './dpop.js';
import { verifyKeyProof } from './keyProof.js';
import { currentDpopNonce, isFreshDpopNonce } from './dpopNonce.js';
import { dpopChallenge, invalidRequest, OAuthError } from '../http/oauthError.js';
import { purgeClaims } from './offerEnd.js';
import { formatOf, signCredential } from './credentialSigner.js';

const BODY_LIMIT = 64 * 1024;

// `credential_identifier` when the token response listed credential_identifiers (the configuration's id here).
const CredentialRequest = t.intersection([
  t.union([t.type({ credential_configuration_id: t.string }), t.type({ credential_identifier: t.string })]),
  t.type({ proofs: t.type({ jwt: t.array(t.string) }) }),
]);

const invalidToken = (description: string) => new OAuthError(401, 'invalid_token', description, dpopChallenge('invalid_token', description));
const invalidCredentialRequest = (description: string) => new OAuthError(400, 'invalid_credential_request', description);

/** The wallet's answer when the access token no longer opens its offer. */
const tokenRefusal = (error: DomainError): string => {
  switch (error._tag) {
    case 'OfferEnded':
      return 'The access token is no longer valid: the offer has ended.';
    case 'OfferHasExpired':
      return 'The access token has expired.';
    default:
      return 'The access token is unknown.';
  }
};

const failOffer = async (issuance: Pick<IssuanceContext, 'store' | 'dataKeys' | 'log' | 'now'>, offerId: string, errorDetails: string, metadata: EventMetadata): Promise<void> => {
  const fail: Command = { type: 'FailOffer', data: { offerId, errorDetails, at: issuance.now().toISOString() } };
  const failed = await handleCommand(issuance.store, offer, offerStream(offerId), fail, { commandId: randomUUID(), metadata });
  if (!isLeft(failed) && failed.right.events.length > 0) {
    issuance.log.warn('offer failed', { offerRef: logRef(offerId), errorDetails });
    await purgeClaims(issuance, offerId, metadata);
  }
};

export const credentialEndpoint = (issuance: IssuanceContext) => async (http: Context): Promise<void> => {
  // RFC 6750 section 2.3 allows it for bearer tokens; a DPoP token in a URL would end up in logs.
  if (http.query['access_token'] !== undefined) throw invalidRequest('Send the access token in the Authorization header, not the query.');
  const authorization = /^DPoP ([A-Za-z0-9._~+/-]+=*)$/.exec(http.get('Authorization'));
  if (!authorization) throw invalidToken('Send the access token as `Authorization: DPoP <token>` with a DPoP proof.');
  const accessToken = authorization[1]!;
  const parsed = parseOfferSecret(accessToken);
  if (!parsed) throw invalidToken('The access token is unknown.');
  const now = issuance.now();
  const loaded = await loadStream(issuance.store, offer, offerStream(parsed.offerId));
  if (isLeft(loaded)) throw invalidToken('The access token is unknown.');
  const authorised = authorisedBy(loaded.right.state, parsed.offerId, parsed.hash, now.toISOString());
  if (isLeft(authorised)) throw invalidToken(tokenRefusal(authorised.left));
  const state = authorised.right;
  // First of what needs keys: a key store that does not answer fails the request before the proofs are spent.
  const key = await issuance.dataKeys.find(state.offerId);

  const dpop = await verifyDpopProof(issuance.store, {
    proof: http.headers['dpop'],
    htm: 'POST',
    htu: endpointUrl(issuance.config.publicUrl, PATHS.credential),
    accessToken,
    now,
    maxAgeSeconds: issuance.config.proofMaxAgeSeconds,
    // HAIP's server nonces for the authorization code flow; before the key proof's c_nonce is spent, so the wallet can send that proof again.
    ...(state.grant.grant === 'pre-authorized_code' ? {} : { acceptsNonce: (nonce: unknown) => isFreshDpopNonce(issuance.secrets, nonce, now) }),
  });
  if (!dpop.ok && dpop.useNonce) {
    throw new OAuthError(401, 'use_dpop_nonce', dpop.reason, { ...dpopChallenge('use_dpop_nonce', dpop.reason), 'DPoP-Nonce': currentDpopNonce(issuance.secrets, now) });
  }
  if (!dpop.ok) throw new OAuthError(401, 'invalid_dpop_proof', dpop.reason, dpopChallenge('invalid_dpop_proof', dpop.reason));
  if (dpop.jkt !== state.token.dpopJkt) {
    const reason = 'The DPoP proof is not signed with the key the access token is bound to.';
    throw new OAuthError(401, 'invalid_dpop_proof', reason, dpopChallenge('invalid_dpop_proof', reason));
  }

  const body = await readJson(http, { limitBytes: BODY_LIMIT });
  if (typeof body === 'object' && body !== null && 'credential_response_encryption' in body) {
    throw new OAuthError(400, 'invalid_encryption_parameters', 'Credential response encryption is not supported.');
  }
  const request = CredentialRequest.decode(body);
  if (isLeft(request)) throw invalidCredentialRequest('Expected {credential_configuration_id, proofs: {jwt: [<key proof>]}}.');
  const asked = 'credential_configuration_id' in request.right ? request.right.credential_configuration_id : request.right.credential_identifier;
  if (asked !== state.credentialConfigurationId) {
    throw new OAuthError(400, 'unknown_credential_configuration', 'This access token is for another credential configuration.');
  }
  const [proof, ...more] = request.right.proofs.jwt;
  if (proof === undefined || more.length > 0) throw invalidCredentialRequest('Send exactly one key proof: batch issuance is not offered.');
  const holder = await verifyKeyProof(issuance, proof, now);
  if (!holder.ok) throw new OAuthError(400, holder.error, holder.reason);

  const metadata = { actor: 'wallet', requestId: requestIdOf(http) };
  const offerId = state.offerId;
  const configuration = issuance.configurations.get(state.credentialConfigurationId);
  let credential: string;
  // errorDetails reaches the integrator: only reasons written here, never an internal message.
  let failure = 'credential configuration no longer configured';
  try {
    if (!configuration) throw new Error(failure);
    failure = 'claims unavailable';
    if (!key || state.claims === null) throw new Error(failure);
    const claims = key.open(state.claims, 'claims') as { [name: string]: Json };
    failure = 'credential status could not be allocated';
    const status = configuration.status_list === false ? undefined : await issuance.statusAllocator.referenceFor(offerId, state.tenantId, now, metadata);
    if (status !== undefined && isLeft(status)) throw new Error(`${failure}: ${status.left}`);
    failure = 'credential signing failed';
    const toSign = {
      issuer: issuance.config.publicUrl,
      configuration,
      claims,
      holderJwk: holder.jwk,
      now,
      validitySeconds: issuance.config.credentialValidityDays * 86_400,
      ...(status === undefined ? {} : { status: status.right }),
    };
    credential = await signCredential(issuance.signers, formatOf(configuration), issuance.signingKey, toSign);
  } catch (err) {
    // Keys that do not answer now fail this request only: the offer stays as it is, to retry.
    if (err instanceof KeysUnavailable) throw err;
    issuance.log.error('credential could not be issued', { offerRef: logRef(offerId), err });
    await failOffer(issuance, offerId, failure, metadata);
    throw new OAuthError(500, 'server_error', 'The credential could not be issued; the offer has failed.');
  }

  const issue: Command = { type: 'IssueCredential', data: { offerId, accessTokenHash: parsed.hash, at: issuance.now().toISOString() } };
  // Decided on the stream as read above: if anything was appended since, the append loses the
  // race and the stream is read again (one retry).
  const issued = await handleCommand(issuance.store, offer, offerStream(offerId), issue, { commandId: randomUUID(), metadata, loaded: loaded.right, retries: 1 });
  if (isLeft(issued)) throw invalidToken('offerId' in issued.left ? tokenRefusal(issued.left) : 'The offer changed while the credential was requested; it was not issued.');
  issuance.log.info('credential issued', { offerRef: logRef(offerId), credentialConfigurationId: state.credentialConfigurationId });
  await purgeClaims(issuance, offerId, metadata);
  http.set('Cache-Control', 'no-store');
  http.set('DPoP-Nonce', currentDpopNonce(issuance.secrets, now));
  http.body = { credentials: [{ credential }] };
};
