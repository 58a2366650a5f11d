// PKCE (RFC 7636) with the S256 method only: HAIP 1.0 requires it, and `plain` would put the
// verifier itself in the authorization request. The offer records the wallet's code_challenge;
// the token endpoint hands the decider the challenge of the verifier it received.
import { createHash } from 'node:crypto';

export const CODE_CHALLENGE_METHOD = 'S256';

/** RFC 7636 section 4.1: 43-128 characters of [A-Za-z0-9-._~]. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** base64url of a SHA-256 digest, no padding. */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isCodeChallenge = (value: string): boolean => CODE_CHALLENGE.test(value);

/** The S256 challenge of a code_verifier (RFC 7636 section 4.2), or undefined for a malformed verifier. */
export const challengeOf = (verifier: string): string | undefined =>
  CODE_VERIFIER.test(verifier) ? createHash('sha256').update(verifier, 'ascii').digest('base64url') : undefined;
