// The authorization request at the authorization endpoint (RFC 6749 section 4.1.1 with RFC
// 9126's request_uri, HAIP 1.0 section 4): `client_id` and the pushed request's `request_uri`,
// optionally `dpop_jkt` (RFC 9449 section 10); each given at most once. HAIP: authorization
// requests are pushed; parameters sent here instead of a request_uri are not accepted.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { parseOfferSecret } from '../codes.js';
import { isJwkThumbprint } from '../dpop.js';
import { REQUEST_URI_PREFIX } from '../pushedAuthorization/pushAuthorizationRequest.js';

export type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface StartRequest {
  readonly clientId: string;
  /** The offer and the hash of the request_uri's secret part. */
  readonly requestUri: { readonly offerId: string; readonly hash: string };
  readonly dpopJkt: string | undefined;
}

/** `invalid_request` with the reason: shown, never redirected. */
export interface AuthorizeParameterInvalid {
  readonly _tag: 'AuthorizeParameterInvalid';
  readonly reason: string;
}

const invalid = (reason: string): Either<AuthorizeParameterInvalid, never> => left({ _tag: 'AuthorizeParameterInvalid', reason });

export const UNKNOWN_REQUEST_URI = 'request_uri is unknown, expired or already used.';

/** A query parameter given once, or undefined; repeated, refused. */
const one = (query: Query, name: string): Either<AuthorizeParameterInvalid, string | undefined> => {
  const value = query[name];
  if (Array.isArray(value)) return invalid(`${name} must appear once.`);
  return right(value === undefined || value === '' ? undefined : (value as string));
};

/** The parameters checked in order: the first wrong one is the error. */
export const parseStartRequest = (query: Query): Either<AuthorizeParameterInvalid, StartRequest> => {
  const clientId = one(query, 'client_id');
  if (isLeft(clientId)) return clientId;
  if (clientId.right === undefined) return invalid('client_id is required.');
  const requestUri = one(query, 'request_uri');
  if (isLeft(requestUri)) return requestUri;
  if (requestUri.right === undefined) return invalid('request_uri is required: push the authorization request first.');
  const uri = requestUri.right;
  const parsed = uri.startsWith(REQUEST_URI_PREFIX) ? parseOfferSecret(uri.slice(REQUEST_URI_PREFIX.length)) : undefined;
  if (parsed === undefined) return invalid(UNKNOWN_REQUEST_URI);
  const dpopJkt = one(query, 'dpop_jkt');
  if (isLeft(dpopJkt)) return dpopJkt;
  if (dpopJkt.right !== undefined && !isJwkThumbprint(dpopJkt.right)) return invalid('dpop_jkt must be the base64url SHA-256 JWK thumbprint of the DPoP key.');
  return right({ clientId: clientId.right, requestUri: parsed, dpopJkt: dpopJkt.right });
};
