// One Authorization Request's secrets: a fresh `kid`, nonce and ECDH-ES P-256 response-encryption
// key, the private key sealed with the session's data key (purpose `response-key/<kid>`). A wallet
// fetching a request URI gets one per flow type; a DC API session gets its one at creation, and
// one offered in `org-iso-mdoc` an HPKE recipient key beside it.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { purposes, type FetchedRequest, type FlowType } from '../../streams/presentation.js';
import type { DataKey } from '../crypto/dataKeys.js';
import type { Json } from '../eventstore/port.js';
import type { Sealed } from '../../streams/dataKey.js';

const random = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** A fresh P-256 key pair: the private JWK sealed for `purpose`, and the public JWK. */
const newSealedKey = (key: DataKey, purpose: string): { sealed: Sealed; publicJwk: JWK } => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = privateKey.export({ format: 'jwk' });
  const privateJwk = privateKey.export({ format: 'jwk' }) as Json;
  return { sealed: key.seal(privateJwk, purpose), publicJwk: { kty, crv, x, y } as JWK };
};

/** A fresh request for `flowType`, and the public half of its response-encryption key. */
export const newRequest = (flowType: FlowType, key: DataKey): { request: FetchedRequest; publicJwk: JWK } => {
  const kid = random(16);
  const { sealed, publicJwk } = newSealedKey(key, purposes.responseKey(kid));
  return { request: { kid, flowType, nonce: random(32), responseKey: sealed }, publicJwk };
};

/**
 * The HPKE recipient key of an ISO/IEC TS 18013-7 Annex C request (its EncryptionInfo): a key of
 * its own, so no key serves two encryption schemes.
 */
export const newAnnexCRecipientKey = (key: DataKey): { sealed: Sealed; publicJwk: JWK } => newSealedKey(key, purposes.annexCRecipientKey);
