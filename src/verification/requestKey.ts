// One Authorization Request's secrets: a fresh `kid`, nonce and ECDH-ES P-256 response-encryption
// key, the private key sealed with the session's data key (purpose `response-key/<kid>`). A wallet
// fetching a request URI gets one per flow type; a DC API session gets its one at creation, and
// one offered in `org-iso-mdoc` an HPKE recipient key beside it.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { type FetchedRequest, type FlowType } from '../../streams/presentation.js';
import { PrivateEcJwk, purposes } from '../../streams/presentationSealed.js';
import { sealFor, type DataKey } from '../crypto/dataKeys.js';
import type { Sealed, SealedPurpose } from '../../streams/dataKey.js';

const random = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** A fresh P-256 key pair: the private JWK sealed for `purpose`, and the public JWK. */
const newSealedKey = (key: DataKey, purpose: SealedPurpose<PrivateEcJwk>): { sealed: Sealed<PrivateEcJwk>; publicJwk: JWK } => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateJwk = PrivateEcJwk.decode(privateKey.export({ format: 'jwk' }));
  if (isLeft(privateJwk)) throw new Error('a generated P-256 key does not export as a private EC JWK');
  const { kty, crv, x, y } = privateJwk.right;
  return { sealed: sealFor(key, purpose, privateJwk.right), publicJwk: { kty, crv, x, y } };
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
export const newAnnexCRecipientKey = (key: DataKey): { sealed: Sealed<PrivateEcJwk>; publicJwk: JWK } => newSealedKey(key, purposes.annexCRecipientKey);
