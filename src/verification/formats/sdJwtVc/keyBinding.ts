// Key binding (SD-JWT KB-JWT) and the transaction data it signs (OpenID4VP 1.0, 8.4 and B.3.3):
// the holder proves possession of the key in the credential's `cnf.jwk`, for this verifier
// (`aud` = client_id, or `origin:<origin>` over the DC API), this request (`nonce`), now (`iat`), this exact presentation (`sd_hash`)
// and the transaction data the user was shown (`transaction_data_hashes`).
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { sha256Base64url } from './disclosures.js';
import { isRecord } from '../../../../streams/kernel.js';
import { parseJson, typIs } from '../../json.js';

/** How far in the past a KB-JWT `iat` may be: long enough for a user to confirm on a phone. */
export const KB_MAX_AGE_SECONDS = 300;
/** How far in the future: clock skew between wallet and connector, nothing more. */
export const KB_MAX_FUTURE_SECONDS = 60;

export interface KeyBindingExpectations {
  readonly cnfJwk: unknown;
  /** The presentation up to and including its last `~`. */
  readonly presentedSdJwt: string;
  /** The expected `aud`: the client_id, or `origin:<origin>` over the DC API. */
  readonly audience: string;
  readonly nonce: string;
  readonly now: Date;
  /** The base64url strings of the request's transaction data that name this credential. */
  readonly transactionData: readonly string[];
}

export interface KeyBindingResult {
  /** RFC 7638 SHA-256 thumbprint of `cnf.jwk`. */
  readonly kbKeyId: string;
  /** Present when transaction data names this credential. */
  readonly transactionDataHashes?: readonly string[];
}

// An absurd iat must still produce a message, not a RangeError from Date.
const describeSeconds = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
};

/** `cnf.jwk` as a public P-256 key usable for ES256, or why not. */
const holderKey = (cnfJwk: unknown): Either<string, JWK> => {
  if (!isRecord(cnfJwk)) return left('credential has no cnf.jwk to bind a key to');
  if (cnfJwk['kty'] !== 'EC' || cnfJwk['crv'] !== 'P-256' || typeof cnfJwk['x'] !== 'string' || typeof cnfJwk['y'] !== 'string') {
    return left('cnf.jwk is not a P-256 public key');
  }
  if ('d' in cnfJwk) return left('cnf.jwk contains a private key');
  return right({ kty: 'EC', crv: 'P-256', x: cnfJwk['x'], y: cnfJwk['y'] });
};

const checkTransactionData = (payload: Record<string, unknown>, encoded: readonly string[]): Either<string, readonly string[] | undefined> => {
  if (encoded.length === 0) return right(undefined);
  const hashes = payload['transaction_data_hashes'];
  if (!Array.isArray(hashes) || !hashes.every((h): h is string => typeof h === 'string')) {
    return left('KB-JWT has no transaction_data_hashes although transaction data names this credential');
  }
  const alg = payload['transaction_data_hashes_alg'];
  if (alg !== undefined && alg !== 'sha-256') return left(`KB-JWT transaction_data_hashes_alg ${JSON.stringify(alg)} is not sha-256`);
  const expected = encoded.map(sha256Base64url);
  const missing = expected.findIndex((h) => !hashes.includes(h));
  if (missing >= 0) return left(`KB-JWT transaction_data_hashes lacks the hash of transaction data item ${missing + 1} for this credential`);
  if (hashes.length !== expected.length || new Set(hashes).size !== hashes.length) {
    return left('KB-JWT transaction_data_hashes holds hashes of no transaction data sent for this credential');
  }
  return right(hashes);
};

export const verifyKeyBinding = async (kbJwt: string, expect: KeyBindingExpectations): Promise<Either<string, KeyBindingResult>> => {
  const jwk = holderKey(expect.cnfJwk);
  if (isLeft(jwk)) return jwk;
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(kbJwt);
  } catch {
    return left('KB-JWT is not a JWS');
  }
  if (!typIs(header.typ, 'kb+jwt')) return left(`KB-JWT typ is ${JSON.stringify(header.typ)}, expected "kb+jwt"`);
  if (header.alg !== 'ES256') return left(`KB-JWT alg is ${JSON.stringify(header.alg)}, expected "ES256"`);
  let payloadBytes: Uint8Array;
  try {
    const key = await importJWK(jwk.right, 'ES256');
    payloadBytes = (await compactVerify(kbJwt, key, { algorithms: ['ES256'] })).payload;
  } catch {
    return left('KB-JWT signature does not verify with cnf.jwk');
  }
  const payload = parseJson(payloadBytes);
  if (!isRecord(payload)) return left('KB-JWT payload is not a JSON object');
  if (payload['aud'] !== expect.audience) return left(`KB-JWT aud is not ${expect.audience}`);
  if (payload['nonce'] !== expect.nonce) return left('KB-JWT nonce does not match the request\'s nonce');
  const iat = payload['iat'];
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return left('KB-JWT has no numeric iat');
  const nowSeconds = expect.now.getTime() / 1000;
  if (iat < nowSeconds - KB_MAX_AGE_SECONDS) return left(`KB-JWT iat ${describeSeconds(iat)} is more than ${KB_MAX_AGE_SECONDS} s in the past`);
  if (iat > nowSeconds + KB_MAX_FUTURE_SECONDS) return left(`KB-JWT iat ${describeSeconds(iat)} is in the future`);
  if (payload['sd_hash'] !== sha256Base64url(expect.presentedSdJwt)) return left('KB-JWT sd_hash does not match the presentation');
  const transactionDataHashes = checkTransactionData(payload, expect.transactionData);
  if (isLeft(transactionDataHashes)) return transactionDataHashes;
  const kbKeyId = await calculateJwkThumbprint(jwk.right, 'sha256');
  return right(transactionDataHashes.right ? { kbKeyId, transactionDataHashes: transactionDataHashes.right } : { kbKeyId });
};
