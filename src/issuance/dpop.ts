// DPoP proof validation (RFC 9449 section 4.3) for the PAR, token and credential endpoints. A proof
// is accepted once: its (key thumbprint, jti) pair is spent in the store, so a replay fails on
// every instance. Proofs older than the configured age are refused, which bounds how long a
// replay record matters.
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { dpopProof, dpopProofStream } from '../../streams/dpopProof.js';
import type { EventStore } from '../eventstore/port.js';
import { spendOnce } from './singleUse.js';

export interface DpopCheck {
  /** The `DPoP` request header as received (undefined when absent). */
  readonly proof: string | readonly string[] | undefined;
  readonly htm: string;
  /** The endpoint's URL as the wallet knows it: PUBLIC_URL plus the path. */
  readonly htu: string;
  /** For resource requests: the access token the proof must hash into `ath`. */
  readonly accessToken?: string;
  readonly now: Date;
  readonly maxAgeSeconds: number;
  /** When the server asks for DPoP nonces (src/issuance/dpopNonce.ts): whether the proof's `nonce` is one it accepts now. */
  readonly acceptsNonce?: (nonce: unknown) => boolean;
}

export type DpopResult =
  | { readonly ok: true; readonly jkt: string }
  /** `useNonce`: the proof is otherwise good but lacks the current server nonce (RFC 9449 section 8). */
  | { readonly ok: false; readonly missing: boolean; readonly reason: string; readonly useNonce?: true };

/** Tolerated clock difference for proofs dated slightly in the future. */
const SKEW_SECONDS = 5;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

const withoutQuery = (url: string): string | undefined => {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return undefined;
  }
};

/** A SHA-256 JWK thumbprint (RFC 7638) in base64url, as `dpop_jkt` carries it (RFC 9449 section 10). */
export const isJwkThumbprint = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

const fail = (reason: string): DpopResult => ({ ok: false, missing: false, reason });

export const verifyDpopProof = async (store: EventStore, check: DpopCheck): Promise<DpopResult> => {
  if (check.proof === undefined || check.proof === '') return { ok: false, missing: true, reason: 'A DPoP proof is required.' };
  // Node joins repeated headers with ", "; a compact JWS never contains a comma.
  if (typeof check.proof !== 'string' || check.proof.includes(',')) return fail('Send exactly one DPoP header.');
  let header: { jwk?: JWK };
  let payload: Record<string, unknown>;
  try {
    const verified = await jwtVerify(check.proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
    header = verified.protectedHeader;
    payload = verified.payload;
  } catch {
    return fail('The DPoP proof is malformed, not ES256, not typed dpop+jwt, or its signature does not verify with its jwk.');
  }
  const { jti, htm, htu, iat, ath, nonce } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > 256) return fail('The DPoP proof needs a jti.');
  if (htm !== check.htm) return fail(`The DPoP proof's htm must be ${check.htm}.`);
  if (typeof htu !== 'string' || withoutQuery(htu) !== check.htu) return fail(`The DPoP proof's htu must be ${check.htu}.`);
  const nowSeconds = check.now.getTime() / 1000;
  if (typeof iat !== 'number' || iat > nowSeconds + SKEW_SECONDS || iat < nowSeconds - check.maxAgeSeconds) {
    return fail('The DPoP proof is not fresh: check its iat.');
  }
  if (check.accessToken !== undefined && ath !== sha256(check.accessToken)) return fail("The DPoP proof's ath does not match the access token.");
  // Before the jti is spent, so the wallet's retry with the nonce is a fresh proof that is not a replay of anything.
  if (check.acceptsNonce !== undefined && !check.acceptsNonce(nonce)) {
    return { ok: false, missing: false, useNonce: true, reason: 'The DPoP proof must carry the nonce from the DPoP-Nonce header.' };
  }
  const jkt = await calculateJwkThumbprint(header.jwk!, 'sha256');
  const spent = await spendOnce(store, dpopProof, dpopProofStream(sha256(`${jkt}.${jti}`)), {
    usedAt: check.now.toISOString(),
    htm: check.htm,
    htu: check.htu,
  });
  return spent ? { ok: true, jkt } : fail('The DPoP proof was already used (jti replayed).');
};
