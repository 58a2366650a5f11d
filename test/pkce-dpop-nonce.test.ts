// PKCE S256 (RFC 7636) and the server's DPoP nonces (RFC 9449 section 8): pure functions.
import test from 'ava';
import { currentDpopNonce, DPOP_NONCE_ROTATION_SECONDS, isFreshDpopNonce } from '../src/issuance/dpopNonce.js';
import { challengeOf, isCodeChallenge } from '../src/issuance/pkce.js';
import { issuanceSecrets } from '../src/issuance/secrets.js';

test('the S256 challenge of a verifier is the one of RFC 7636 appendix B', (t) => {
  const challenge = challengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk');
  t.is(challenge, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  t.true(isCodeChallenge(challenge!));
});

test('a verifier shorter than 43, longer than 128 or with other characters has no challenge', (t) => {
  t.is(challengeOf('a'.repeat(42)), undefined);
  t.is(challengeOf('a'.repeat(129)), undefined);
  t.is(challengeOf(`${'a'.repeat(42)}!`), undefined);
  t.false(isCodeChallenge('plain-verifier-sent-as-challenge'));
});

const secrets = issuanceSecrets(Buffer.alloc(32, 7));
const at = (seconds: number) => new Date(seconds * 1000);
const T = 1_800_000_000;

test('a DPoP nonce is accepted in its window and the next one, and refused after', (t) => {
  const nonce = currentDpopNonce(secrets, at(T));
  t.true(isFreshDpopNonce(secrets, nonce, at(T)));
  t.true(isFreshDpopNonce(secrets, nonce, at(T + DPOP_NONCE_ROTATION_SECONDS)));
  t.false(isFreshDpopNonce(secrets, nonce, at(T + 2 * DPOP_NONCE_ROTATION_SECONDS)));
  t.not(currentDpopNonce(secrets, at(T + 2 * DPOP_NONCE_ROTATION_SECONDS)), nonce, 'it rotates');
});

test('a DPoP nonce from the future, forged, of another key or missing is refused', (t) => {
  t.false(isFreshDpopNonce(secrets, currentDpopNonce(secrets, at(T + 3 * DPOP_NONCE_ROTATION_SECONDS)), at(T)));
  const [window] = currentDpopNonce(secrets, at(T)).split('.');
  t.false(isFreshDpopNonce(secrets, `${window}.${'A'.repeat(43)}`, at(T)));
  t.false(isFreshDpopNonce(issuanceSecrets(Buffer.alloc(32, 8)), currentDpopNonce(secrets, at(T)), at(T)));
  t.false(isFreshDpopNonce(secrets, undefined, at(T)));
});
