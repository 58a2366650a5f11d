// The wallet's Authorization Response in `direct_post.jwt` or `dc_api.jwt` (OpenID4VP 1.0
// section 8.3): a JWE encrypted to one of the session's request keys, decrypted and read as a JSON
// object (else PROCESSING_ERROR), and the syntax of the OAuth error code a wallet may answer with.
import { calculateJwkThumbprint, compactDecrypt, decodeProtectedHeader } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { type FetchedRequest } from '../../streams/presentation.js';
import { purposes } from '../../streams/presentationSealed.js';
import { openFor, type DataKey } from '../crypto/dataKeys.js';
import { parseBoundedJson } from '../http/boundedJson.js';
import { isRecord } from '../../streams/kernel.js';
import { RESPONSE_ENCRYPTION } from './authorizationRequest.js';

// RFC 6749 section 5.2: error codes are printable ASCII without `"` and `\`.
export const ERROR_CODE = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,128}$/;

const decryptFor = async (
  jwe: string,
  fetched: readonly FetchedRequest[],
  key: DataKey,
): Promise<{ request: FetchedRequest; plaintext: Uint8Array; jwkThumbprint: Uint8Array } | string> => {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(jwe).kid;
  } catch {
    return 'the response is not a compact JWE';
  }
  // Wallets name the request key in `kid` (OpenID4VP 1.0 section 8.3); without it, try each.
  const candidates = kid === undefined ? fetched : fetched.filter((f) => f.kid === kid);
  if (candidates.length === 0) return 'the response is encrypted to a key this request never offered';
  for (const request of candidates) {
    const privateJwk = openFor(key, purposes.responseKey(request.kid), request.responseKey);
    try {
      const { plaintext } = await compactDecrypt(jwe, createPrivateKey({ key: privateJwk, format: 'jwk' }), {
        keyManagementAlgorithms: [RESPONSE_ENCRYPTION.alg],
        contentEncryptionAlgorithms: [...RESPONSE_ENCRYPTION.enc],
      });
      // The key the wallet encrypted to is part of an mdoc's SessionTranscript (OpenID4VP 1.0, B.2.6.1).
      const { kty, crv, x, y } = privateJwk;
      const jwkThumbprint = Buffer.from(await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256'), 'base64url');
      return { request, plaintext, jwkThumbprint };
    } catch {
      // Another candidate may hold the key.
    }
  }
  return 'the response could not be decrypted with the request key';
};

/** A decrypted Authorization Response, and the request and key it answered. */
export interface OpenedResponse {
  readonly request: FetchedRequest;
  readonly payload: Readonly<Record<string, unknown>>;
  /** RFC 7638 thumbprint of the key it was encrypted to. */
  readonly jwkThumbprint: Uint8Array;
}

/** The JWE decrypted with one of `fetched`'s keys, as a JSON object; else why not (PROCESSING_ERROR). */
export const openResponse = async (jwe: string, fetched: readonly FetchedRequest[], key: DataKey): Promise<OpenedResponse | string> => {
  const decrypted = await decryptFor(jwe, fetched, key);
  if (typeof decrypted === 'string') return decrypted;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(decrypted.plaintext);
  } catch {
    return 'the decrypted response is not UTF-8';
  }
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) return `the decrypted response is ${parsed.reason}`;
  if (!isRecord(parsed.value)) return 'the decrypted response is not a JSON object';
  return { request: decrypted.request, payload: parsed.value, jwkThumbprint: decrypted.jwkThumbprint };
};

