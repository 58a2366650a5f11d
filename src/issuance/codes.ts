// The bearer values of an offer. Each starts with the offer id, so the one stream that decides
// about it is found without an index; the rest is what makes it unguessable.
//  - pre-authorized code: `<offer id>.<MAC of the offer id>`: derivable by any instance, never recorded;
//  - access token, and in the authorization code flow the request_uri, authorization_id and code:
//    `<offer id>.<256 random bits>`: only its SHA-256 is recorded;
//  - issuer_state (authorization code flow): `<offer id>.<MAC of the offer id>`, like the pre-authorized code;
//  - transaction code: recorded as a MAC bound to the offer id.
import { hashSecret } from '../tenancy/secrets.js';
import { randomToken, type IssuanceSecrets, type MacPurpose } from './secrets.js';

const BOUND_VALUE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

const split = (value: string): { offerId: string; secret: string } | undefined => {
  const m = BOUND_VALUE.exec(value);
  return m ? { offerId: m[1]!, secret: m[2]! } : undefined;
};

/** `<offer id>.<MAC of the offer id>` for one purpose: derivable by any instance, never recorded. */
const macBound = (secrets: IssuanceSecrets, purpose: MacPurpose, offerId: string): string => `${offerId}.${secrets.mac(purpose, offerId)}`;

/** The offer a MAC-bound value belongs to, or undefined for a value this issuer never made for that purpose. */
const offerOfMacBound = (secrets: IssuanceSecrets, purpose: MacPurpose, value: string): string | undefined => {
  const parts = split(value);
  return parts && secrets.verify(purpose, parts.offerId, parts.secret) ? parts.offerId : undefined;
};

export const preAuthorizedCode = (secrets: IssuanceSecrets, offerId: string): string => macBound(secrets, 'pre-authorized_code', offerId);

/** The offer a pre-authorized code belongs to, or undefined for a code this issuer never made. */
export const offerOfPreAuthorizedCode = (secrets: IssuanceSecrets, code: string): string | undefined => offerOfMacBound(secrets, 'pre-authorized_code', code);

/** `<offer id>.<256 random bits>` and the SHA-256 its offer records: access tokens, authorization codes, request_uri and authorization_id values. */
export const newOfferSecret = (offerId: string): { token: string; hash: string } => {
  const secret = randomToken();
  return { token: `${offerId}.${secret}`, hash: hashSecret(secret) };
};

/** The offer such a value claims to belong to, and the hash its offer recorded if it is genuine. */
export const parseOfferSecret = (token: string): { offerId: string; hash: string } | undefined => {
  const parts = split(token);
  return parts && { offerId: parts.offerId, hash: hashSecret(parts.secret) };
};

/** `issuer_state` of an authorization-code offer: derivable by any instance like the pre-authorized code, never recorded. */
export const issuerState = (secrets: IssuanceSecrets, offerId: string): string => macBound(secrets, 'issuer_state', offerId);

/** The offer an issuer_state belongs to, or undefined for one this issuer never made. */
export const offerOfIssuerState = (secrets: IssuanceSecrets, state: string): string | undefined => offerOfMacBound(secrets, 'issuer_state', state);

export const txCodeHash = (secrets: IssuanceSecrets, offerId: string, txCode: string): string => secrets.mac('tx_code', `${offerId}:${txCode}`);
