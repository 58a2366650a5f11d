// The Pushed Authorization Request (RFC 9126 section 2.1; OpenID4VCI section 5.1, HAIP 1.0
// section 4) as this issuer takes it, from its form fields: the offer named by `issuer_state`,
// what the wallet wants by `scope` and/or `authorization_details` (RFC 9396), a PKCE S256
// challenge (RFC 7636) and a redirect_uri, and optionally `dpop_jkt` (RFC 9449 section 10).
// Parameters are checked in the order the endpoint always checked them.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { isRecord } from '../../../streams/kernel.js';
import type { FormFields } from '../../http/body.js';
import { parseBoundedJson } from '../../http/boundedJson.js';
import { offerOfIssuerState } from '../codes.js';
import { scopeOf } from '../configurations.js';
import type { AtIssuer, IssuanceContext } from '../context.js';
import { isJwkThumbprint } from '../dpop.js';
import { CODE_CHALLENGE_METHOD, isCodeChallenge } from '../pkce.js';
import { redirectUriProblem } from '../redirectUri.js';
import { formField } from '../form.js';

/** The largest form read. */
export { FORM_LIMIT as PAR_REQUEST_LIMIT } from '../form.js';

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

export type ParRequestError =
  /** `invalid_request` with the reason. */
  | { readonly _tag: 'ParParameterInvalid'; readonly reason: string }
  | { readonly _tag: 'RequestObjectUnsupported' }
  | { readonly _tag: 'ResponseTypeUnsupported' }
  | { readonly _tag: 'ScopeUnknown'; readonly scope: string }
  | { readonly _tag: 'AuthorizationDetailsInvalid'; readonly reason: string };

const invalid = (reason: string): Either<ParRequestError, never> => left({ _tag: 'ParParameterInvalid', reason });

/** A field given once; repeated, refused (RFC 6749 section 3.2). */
const once = (fields: FormFields, name: string): Either<ParRequestError, string | undefined> => {
  const value = formField(fields, name);
  return isLeft(value) ? invalid(value.left) : value;
};

/** `authorization_details` (RFC 9396) of type openid_credential: the configuration ids asked for. */
const credentialDetails = (text: string, configurations: ReadonlySet<string>): Either<ParRequestError, string[]> => {
  const refused = (reason: string): Either<ParRequestError, never> => left({ _tag: 'AuthorizationDetailsInvalid', reason });
  const parsed = parseBoundedJson(text);
  if (!parsed.ok || !Array.isArray(parsed.value) || parsed.value.length === 0) return refused('authorization_details must be a non-empty JSON array.');
  const ids: string[] = [];
  for (const detail of parsed.value) {
    const { type, credential_configuration_id: id } = isRecord(detail) ? detail : {};
    if (type !== 'openid_credential') return refused('Each authorization_details entry must have type openid_credential.');
    if (typeof id !== 'string' || !configurations.has(id)) return refused('Each authorization_details entry must name a credential_configuration_id of this issuer.');
    ids.push(id);
  }
  return right(ids);
};

/** The request's parameters checked (OpenID4VCI section 5.1, RFC 9126 section 2.1, RFC 7636), in order: the first wrong one is the error. */
export const parseAuthorizationRequest = (fields: FormFields, ports: Pick<IssuanceContext, 'secrets'> & AtIssuer): Either<ParRequestError, AuthorizationRequest> => {
  if (fields['request_uri'] !== undefined) return invalid('request_uri must not be sent to the pushed authorization request endpoint.');
  if (fields['request'] !== undefined) return left({ _tag: 'RequestObjectUnsupported' });
  const responseType = once(fields, 'response_type');
  if (isLeft(responseType)) return responseType;
  if (responseType.right !== 'code') return left({ _tag: 'ResponseTypeUnsupported' });
  const clientId = once(fields, 'client_id');
  if (isLeft(clientId)) return clientId;
  if (clientId.right === undefined) return invalid('client_id is required.');
  const redirectUri = once(fields, 'redirect_uri');
  if (isLeft(redirectUri)) return redirectUri;
  if (redirectUri.right === undefined) return invalid('redirect_uri is required.');
  const redirectProblem = redirectUriProblem(redirectUri.right);
  if (redirectProblem !== undefined) return invalid(redirectProblem);
  const codeChallenge = once(fields, 'code_challenge');
  if (isLeft(codeChallenge)) return codeChallenge;
  if (codeChallenge.right === undefined) return invalid('code_challenge is required (PKCE).');
  const method = once(fields, 'code_challenge_method');
  if (isLeft(method)) return method;
  if (method.right !== CODE_CHALLENGE_METHOD) return invalid('code_challenge_method must be S256.');
  if (!isCodeChallenge(codeChallenge.right)) return invalid('code_challenge must be the base64url SHA-256 of the code verifier.');
  const issuerState = once(fields, 'issuer_state');
  if (isLeft(issuerState)) return issuerState;
  // A wallet-initiated request names no offer: this issuer only issues what an integrator offered.
  if (issuerState.right === undefined) return invalid('issuer_state is required: start from a credential offer.');
  const offerId = offerOfIssuerState(ports.secrets, issuerState.right);
  if (offerId === undefined) return invalid('issuer_state is unknown.');
  const dpopJkt = once(fields, 'dpop_jkt');
  if (isLeft(dpopJkt)) return dpopJkt;
  if (dpopJkt.right !== undefined && !isJwkThumbprint(dpopJkt.right)) return invalid('dpop_jkt must be the base64url SHA-256 JWK thumbprint of the DPoP key.');

  const configurations = new Set(ports.issuer.configurations.keys());
  const scope = once(fields, 'scope');
  if (isLeft(scope)) return scope;
  const details = once(fields, 'authorization_details');
  if (isLeft(details)) return details;
  if (scope.right === undefined && details.right === undefined) return invalid('Send scope or authorization_details.');
  const byScope = new Map([...ports.issuer.configurations.values()].map((c) => [scopeOf(c), c.id]));
  const scopes = (scope.right ?? '').split(' ').filter((s) => s !== '');
  const unknownScope = scopes.find((s) => !byScope.has(s));
  if (unknownScope !== undefined) return left({ _tag: 'ScopeUnknown', scope: unknownScope });
  const fromScope = scopes.map((s) => byScope.get(s) ?? s);
  const fromDetails = details.right === undefined ? right([]) : credentialDetails(details.right, configurations);
  if (isLeft(fromDetails)) return fromDetails;
  const state = once(fields, 'state');
  if (isLeft(state)) return state;
  return right({
    offerId,
    clientId: clientId.right,
    redirectUri: redirectUri.right,
    codeChallenge: codeChallenge.right,
    state: state.right ?? null,
    credentialConfigurationIds: [...new Set([...fromScope, ...fromDetails.right])],
    authorizationDetails: details.right !== undefined,
    dpopJkt: dpopJkt.right,
  });
};
