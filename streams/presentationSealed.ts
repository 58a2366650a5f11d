// What a presentation stream holds sealed with its session's data key (streams/presentation.ts),
// each purpose with the codec its value is read back with: the request, each request's
// response-encryption key, the Annex C recipient key and a FULFILLED outcome's credentials.
import * as t from 'io-ts';
import { sealedPurpose } from './dataKey.js';
import { JsonObject } from './resource.js';

/** A private EC P-256 key as a JWK (RFC 7518 section 6.2): a request's response-encryption key, or an Annex C recipient key. */
export const PrivateEcJwk = t.type({ kty: t.literal('EC'), crv: t.literal('P-256'), x: t.string, y: t.string, d: t.string }, 'PrivateEcJwk');
export type PrivateEcJwk = t.TypeOf<typeof PrivateEcJwk>;

/**
 * What a session's request is sealed as: its DCQL query, transaction data (base64url JSON, as
 * sent) and redirect URI. The verifier reads the query on with its own codec
 * (src/verification/sealedRequest.ts), which the event contract cannot name.
 */
export const RequestSealed = t.type({ dcqlQuery: JsonObject, transactionData: t.readonlyArray(t.string), redirectUri: t.union([t.string, t.null]) }, 'RequestSealed');
export type RequestSealed = t.TypeOf<typeof RequestSealed>;

/** A FULFILLED outcome's `{credentials, credentialsRaw}`, each keyed by credential query id, as the callback carries them. */
export const PresentedCredentials = t.type({ credentials: JsonObject, credentialsRaw: JsonObject }, 'PresentedCredentials');
export type PresentedCredentials = t.TypeOf<typeof PresentedCredentials>;

/** Sealed purposes of this category's data key. */
export const purposes = {
  request: sealedPurpose('presentation-request', RequestSealed),
  /** Named with the request's `kid` (`response-key/<kid>`), so one request's key cannot be swapped for another's. */
  responseKey: (kid: string) => sealedPurpose(`response-key/${kid}`, PrivateEcJwk),
  presentedCredentials: sealedPurpose('presented-credentials', PresentedCredentials),
  /** ISO/IEC TS 18013-7 Annex C's recipient key (EncryptionInfo), a key of its own beside the response key. */
  annexCRecipientKey: sealedPurpose('annex-c-recipient-key', PrivateEcJwk),
};

