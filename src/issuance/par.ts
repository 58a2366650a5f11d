// POST /oidc4vci/par: the Pushed Authorization Request (RFC 9126) that starts the authorization
// code flow (OpenID4VCI section 5.1, HAIP 1.0 section 4). The wallet authenticates with its
// attestation, names the offer by `issuer_state`, what it wants by `scope` and/or
// `authorization_details`, and commits to a PKCE S256 challenge and a redirect_uri. The request is
// recorded on the offer's stream with the wallet that made it; the answer's request_uri is single
// use and short-lived, and only its hash is recorded. A DPoP proof on the request, or `dpop_jkt`,
// binds the code to that key (RFC 9449 section 10.1): the token request must prove it.
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { offer, offerStream, type Command, type DomainError } from '../../streams/offer.js';
import { isRecord, logRef } from '../../streams/kernel.js';
import { handleCommand } from '../eventstore/handle.js';
import { readForm } from '../http/body.js';
import { parseBoundedJson } from '../http/boundedJson.js';
import { requestIdOf } from '../log.js';
import { newOfferSecret, offerOfIssuerState } from './codes.js';
import { scopeOf } from './configurations.js';
import { PATHS, type IssuanceContext } from './context.js';
import { FORM_LIMIT, single } from './form.js';
import { invalidRequest, OAuthError } from '../http/oauthError.js';
import { CODE_CHALLENGE_METHOD, isCodeChallenge } from './pkce.js';
import { checkAttestedWallet } from './walletAttestation.js';
import { redirectUriProblem } from './redirectUri.js';
import { isJwkThumbprint, verifyPostDpopProof } from './dpop.js';
import { currentDpopNonce } from './dpopNonce.js';

/** RFC 9126 section 2.2: the request_uri's prefix. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** Lifetime of a request_uri: the wallet opens the authorization endpoint right away. */
export const REQUEST_URI_TTL_SECONDS = 60;


/** What a pushed authorization request asks for, once its parameters are checked. */
export interface AuthorizationRequest {
  readonly offerId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state: string | null;
  readonly credentialConfigurationIds: readonly string[];
  readonly authorizationDetails: boolean;
  /** `dpop_jkt` (RFC 9449 section 10): the thumbprint of the DPoP key the code is to be bound to. */
  readonly dpopJkt: string | undefined;
}

/** `authorization_details` (RFC 9396) of type openid_credential: the configuration ids asked for. */
const credentialDetails = (text: string, configurations: ReadonlySet<string>): string[] => {
  const invalid = (description: string) => new OAuthError(400, 'invalid_authorization_details', description);
  const parsed = parseBoundedJson(text);
  if (!parsed.ok || !Array.isArray(parsed.value) || parsed.value.length === 0) throw invalid('authorization_details must be a non-empty JSON array.');
  return parsed.value.map((detail) => {
    const { type, credential_configuration_id: id } = isRecord(detail) ? detail : {};
    if (type !== 'openid_credential') throw invalid('Each authorization_details entry must have type openid_credential.');
    if (typeof id !== 'string' || !configurations.has(id)) throw invalid('Each authorization_details entry must name a credential_configuration_id of this issuer.');
    return id;
  });
};

/** The request's parameters checked (OpenID4VCI section 5.1, RFC 9126 section 2.1, RFC 7636); throws the OAuth error. */
export const parseAuthorizationRequest = (
  fields: Readonly<Record<string, string | readonly string[]>>,
  issuance: Pick<IssuanceContext, 'configurations' | 'secrets'>,
): AuthorizationRequest => {
  if (fields['request_uri'] !== undefined) throw invalidRequest('request_uri must not be sent to the pushed authorization request endpoint.');
  if (fields['request'] !== undefined) throw new OAuthError(400, 'request_not_supported', 'Signed authorization requests (request) are not supported.');
  if (single(fields, 'response_type') !== 'code') throw new OAuthError(400, 'unsupported_response_type', 'response_type must be code.');
  const clientId = single(fields, 'client_id');
  if (clientId === undefined) throw invalidRequest('client_id is required.');
  const redirectUri = single(fields, 'redirect_uri');
  if (redirectUri === undefined) throw invalidRequest('redirect_uri is required.');
  const redirectProblem = redirectUriProblem(redirectUri);
  if (redirectProblem !== undefined) throw invalidRequest(redirectProblem);
  const codeChallenge = single(fields, 'code_challenge');
  if (codeChallenge === undefined) throw invalidRequest('code_challenge is required (PKCE).');
  if (single(fields, 'code_challenge_method') !== CODE_CHALLENGE_METHOD) throw invalidRequest('code_challenge_method must be S256.');
  if (!isCodeChallenge(codeChallenge)) throw invalidRequest('code_challenge must be the base64url SHA-256 of the code verifier.');
  const issuerState = single(fields, 'issuer_state');
  // A wallet-initiated request names no offer: this issuer only issues what an integrator offered.
  if (issuerState === undefined) throw invalidRequest('issuer_state is required: start from a credential offer.');
  const offerId = offerOfIssuerState(issuance.secrets, issuerState);
  if (offerId === undefined) throw invalidRequest('issuer_state is unknown.');
  const dpopJkt = single(fields, 'dpop_jkt');
  if (dpopJkt !== undefined && !isJwkThumbprint(dpopJkt)) throw invalidRequest('dpop_jkt must be the base64url SHA-256 JWK thumbprint of the DPoP key.');

  const configurations = new Set(issuance.configurations.keys());
  const scope = single(fields, 'scope');
  const details = single(fields, 'authorization_details');
  if (scope === undefined && details === undefined) throw invalidRequest('Send scope or authorization_details.');
  const byScope = new Map([...issuance.configurations.values()].map((c) => [scopeOf(c), c.id]));
  const scopes = (scope ?? '').split(' ').filter((s) => s !== '');
  const unknownScope = scopes.find((s) => !byScope.has(s));
  if (unknownScope !== undefined) throw new OAuthError(400, 'invalid_scope', `Unknown scope ${JSON.stringify(unknownScope)}.`);
  const fromScope = scopes.map((s) => byScope.get(s) ?? s);
  const fromDetails = details === undefined ? [] : credentialDetails(details, configurations);
  return {
    offerId,
    clientId,
    redirectUri,
    codeChallenge,
    state: single(fields, 'state') ?? null,
    credentialConfigurationIds: [...new Set([...fromScope, ...fromDetails])],
    authorizationDetails: details !== undefined,
    dpopJkt,
  };
};

/**
 * The DPoP key the code is bound to (RFC 9449 section 10.1): the request's DPoP proof, checked like
 * any (its jti spent; no server nonce asked for, as the token request that must prove the same key
 * carries one), or its `dpop_jkt`; both must name the same key. Undefined when the wallet names none.
 */
const pushedDpopKey = async (issuance: IssuanceContext, http: Context, dpopJkt: string | undefined, now: Date): Promise<string | undefined> => {
  if (http.headers['dpop'] === undefined) return dpopJkt;
  const proof = await verifyPostDpopProof(issuance, http.headers, PATHS.par, now);
  if (!proof.ok) throw new OAuthError(400, 'invalid_dpop_proof', proof.reason);
  if (dpopJkt !== undefined && dpopJkt !== proof.jkt) throw new OAuthError(400, 'invalid_dpop_proof', "dpop_jkt is not the thumbprint of the DPoP proof's key.");
  return proof.jkt;
};

const refusal = (error: DomainError): OAuthError => {
  switch (error._tag) {
    case 'CredentialConfigurationNotOffered':
      return new OAuthError(400, 'invalid_scope', 'The offer is for another credential configuration.');
    case 'AlreadyAuthorized':
      return invalidRequest('This offer was already authorized.');
    case 'OfferEnded':
    case 'OfferHasExpired':
      return invalidRequest('The offer has ended; ask for a new one.');
    default:
      return invalidRequest('issuer_state is unknown.');
  }
};

export const parEndpoint = (issuance: IssuanceContext) => async (http: Context): Promise<void> => {
  const request = parseAuthorizationRequest(await readForm(http, { limitBytes: FORM_LIMIT }), issuance);
  const now = issuance.now();
  // The attestation's PoP is spent once the DPoP proof has passed, as at the token endpoint.
  const { wallet, spend } = await checkAttestedWallet(issuance, http.headers, request.clientId, now);
  const dpopJkt = await pushedDpopKey(issuance, http, request.dpopJkt, now);
  await spend();
  const requestUri = newOfferSecret(request.offerId);
  const push: Command = {
    type: 'PushAuthorizationRequest',
    data: {
      offerId: request.offerId,
      requestUriHash: requestUri.hash,
      wallet,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      state: request.state,
      credentialConfigurationIds: [...request.credentialConfigurationIds],
      authorizationDetails: request.authorizationDetails,
      ...(dpopJkt === undefined ? {} : { dpopJkt }),
      expiresAt: new Date(now.getTime() + REQUEST_URI_TTL_SECONDS * 1000).toISOString(),
      at: now.toISOString(),
    },
  };
  const metadata = { actor: 'wallet', requestId: requestIdOf(http) };
  const result = await handleCommand(issuance.store, offer, offerStream(request.offerId), push, { commandId: randomUUID(), metadata, retries: 1 });
  if (isLeft(result)) throw 'offerId' in result.left ? refusal(result.left) : invalidRequest('The offer could not be read.');
  issuance.log.info('authorization request pushed', { offerRef: logRef(request.offerId), walletProvider: wallet.walletProvider, dpopBound: dpopJkt !== undefined });
  http.status = 201;
  http.set('Cache-Control', 'no-store');
  // The nonce the token request's DPoP proof carries (RFC 9449 section 8), saving the wallet a use_dpop_nonce round.
  http.set('DPoP-Nonce', currentDpopNonce(issuance.secrets, now));
  http.body = { request_uri: `${REQUEST_URI_PREFIX}${requestUri.token}`, expires_in: REQUEST_URI_TTL_SECONDS };
};
