// One Authorization Request's secrets: a fresh `kid`, nonce and ECDH-ES P-256 response-encryption
// key, the private key sealed with the session's data key (purpose `response-key/<kid>`). A wallet
// fetching a request URI gets one per flow type; a DC API session gets its one at creation.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { purposes, type FetchedRequest, type FlowType } from '../../streams/presentation.js';
import type { DataKey } from '../crypto/dataKeys.js';
import type { Json } from '../eventstore/port.js';

const random = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** A fresh request for `flowType`, and the public half of its response-encryption key. */
export const newRequest = (flowType: FlowType, key: DataKey): { request: FetchedRequest; publicJwk: JWK } => {
  const kid = random(16);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = privateKey.export({ format: 'jwk' });
  const privateJwk = privateKey.export({ format: 'jwk' }) as Json;
  return { request: { kid, flowType, nonce: random(32), responseKey: key.seal(privateJwk, purposes.responseKey(kid)) }, publicJwk: { kty, crv, x, y } as JWK };
};
