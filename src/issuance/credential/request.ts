// The Credential Request (OpenID4VCI section 8.2) as this issuer takes it: one credential, named
// by `credential_configuration_id` or, when the token response listed credential_identifiers,
// `credential_identifier` (the configuration's id here), and one key proof of type `jwt`.
import * as t from 'io-ts';

/** The largest credential request body read. */
export const CREDENTIAL_REQUEST_LIMIT = 64 * 1024;

export const CredentialRequest = t.intersection([
  t.union([t.type({ credential_configuration_id: t.string }), t.type({ credential_identifier: t.string })]),
  t.type({ proofs: t.type({ jwt: t.array(t.string) }) }),
]);
export type CredentialRequest = t.TypeOf<typeof CredentialRequest>;

/** Credential response encryption (section 8.2's `credential_response_encryption`) is not offered. */
export const asksForEncryption = (body: unknown): boolean => typeof body === 'object' && body !== null && 'credential_response_encryption' in body;

/** The configuration the request asks for, by either of its names. */
export const askedConfiguration = (request: CredentialRequest): string =>
  'credential_configuration_id' in request ? request.credential_configuration_id : request.credential_identifier;
