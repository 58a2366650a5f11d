// The token step's use case (src/issuance/token/redeemToken.ts) called directly, without HTTP, on
// a real store with real DPoP proofs: a pre-authorized code redeemed once for a DPoP-bound token,
// the transaction code counted, and each refusal recording nothing it should not.
import test from 'ava';
import { isLeft } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint } from 'jose';
import { offer, offerStream } from '../streams/offer.js';
import { loadStream } from '../src/eventstore/handle.js';
import { redeemToken, type TokenRequestInput } from '../src/issuance/token/redeemToken.js';
import { parseTokenRequest, type TokenRequest } from '../src/issuance/token/request.js';
import { leftOf, rightOf } from './support/either.js';
import { metadata, newWalletKey, PATHS, PRE_AUTHORIZED_CODE_GRANT, withSteps, type Steps } from './support/issuanceSteps.js';

const input = (request: TokenRequest, dpop: string | undefined): TokenRequestInput => ({ request, attestation: undefined, attestationPop: undefined, dpop, metadata });

const stateOf = async (steps: Steps, offerId: string) => rightOf(await loadStream(steps.ports.store, offer, offerStream(offerId))).state;

test('a pre-authorized code is redeemed once for an access token bound to the DPoP key, as long-lived as the offer', async (t) => {
  await withSteps(async (steps) => {
    const offered = await steps.offer();
    const key = await newWalletKey();
    const token = rightOf(await redeemToken(steps.ports, input(steps.preAuthorized(offered.preAuthorizedCode), await steps.dpop(key, PATHS.token))));
    t.true(token.expiresIn > 200 && token.expiresIn <= 300);
    t.is(token.authorizationDetails, undefined);
    const state = await stateOf(steps, offered.offerId);
    t.like(state, { status: 'OFFER_CREATED', grant: { phase: 'tokenIssued', token: { dpopJkt: await calculateJwkThumbprint(key.publicJwk, 'sha256') } } });
    const again = await redeemToken(steps.ports, input(steps.preAuthorized(offered.preAuthorizedCode), await steps.dpop(key, PATHS.token)));
    t.deepEqual(leftOf(again), { _tag: 'PreAuthorizedCodeUsed' });
  });
});

test('without a DPoP proof, or with a replayed one, the token request is refused and the code stays unspent', async (t) => {
  await withSteps(async (steps) => {
    const offered = await steps.offer();
    const key = await newWalletKey();
    t.like(leftOf(await redeemToken(steps.ports, input(steps.preAuthorized(offered.preAuthorizedCode), undefined))), { _tag: 'TokenDpopProofMissing' });
    const proof = await steps.dpop(key, PATHS.token);
    rightOf(await redeemToken(steps.ports, input(steps.preAuthorized(offered.preAuthorizedCode), proof)));
    const other = await steps.offer();
    t.like(leftOf(await redeemToken(steps.ports, input(steps.preAuthorized(other.preAuthorizedCode), proof))), { _tag: 'TokenDpopProofInvalid' });
    t.like(await stateOf(steps, other.offerId), { grant: { phase: 'offered' } });
    t.like(leftOf(await redeemToken(steps.ports, input(steps.preAuthorized(other.preAuthorizedCode), await steps.dpop(key, PATHS.credential)))), { _tag: 'TokenDpopProofInvalid' });
  });
});

test('an unknown or forged pre-authorized code is refused', async (t) => {
  await withSteps(async (steps) => {
    const key = await newWalletKey();
    t.deepEqual(leftOf(await redeemToken(steps.ports, input(steps.preAuthorized('not-a-code'), await steps.dpop(key, PATHS.token)))), { _tag: 'PreAuthorizedCodeUnknown' });
  });
});

test('the transaction code: required when asked for, counted when wrong, and the last allowed wrong one fails the offer and destroys its claims', async (t) => {
  await withSteps(
    async (steps) => {
      const offered = await steps.offer({ txCode: true });
      const key = await newWalletKey();
      const redeem = async (txCode?: string) => redeemToken(steps.ports, input(steps.preAuthorized(offered.preAuthorizedCode, txCode), await steps.dpop(key, PATHS.token)));
      t.deepEqual(leftOf(await redeem()), { _tag: 'TxCodeRequired' });
      t.deepEqual(leftOf(await redeem('000000x')), { _tag: 'TxCodeWrong' });
      t.like(await stateOf(steps, offered.offerId), { status: 'OFFER_CREATED', grant: { txCodeFailures: 1 } });
      t.deepEqual(leftOf(await redeem('000000y')), { _tag: 'TxCodeWrong' });
      t.like(await stateOf(steps, offered.offerId), { status: 'FAILED', claimsPurged: true });
      t.is(await steps.ports.dataKeys.find(offered.offerId), undefined);
      t.deepEqual(leftOf(await redeem(offered.txCode)), { _tag: 'OfferEnded' });
    },
    { txCodeMaxAttempts: 2 },
  );
});

test('a transaction code sent to an offer without one is refused and nothing is counted', async (t) => {
  await withSteps(async (steps) => {
    const offered = await steps.offer();
    const key = await newWalletKey();
    t.deepEqual(leftOf(await redeemToken(steps.ports, input(steps.preAuthorized(offered.preAuthorizedCode, '1234'), await steps.dpop(key, PATHS.token)))), { _tag: 'TxCodeNotExpected' });
    t.like(await stateOf(steps, offered.offerId), { grant: { phase: 'offered', txCodeFailures: 0 } });
  });
});

test('with WALLET_ATTESTATION required, and always for the authorization code grant, a wallet without an attestation is refused before anything is spent', async (t) => {
  await withSteps(async (steps) => {
    const offered = await steps.offer();
    const key = await newWalletKey();
    const required = { ...steps.ports, walletPolicyOf: () => ({ walletAttestation: 'required' as const, walletProviders: steps.ports.walletProviders }) };
    const proof = await steps.dpop(key, PATHS.token);
    t.like(leftOf(await redeemToken(required, input(steps.preAuthorized(offered.preAuthorizedCode), proof))), { _tag: 'WalletUnauthenticated' });
    // The DPoP proof was not spent: it still redeems the code where attestation is optional.
    rightOf(await redeemToken(steps.ports, input(steps.preAuthorized(offered.preAuthorizedCode), proof)));
    const request = rightOf(parseTokenRequest({ grant_type: 'authorization_code', code: 'c', code_verifier: 'v'.repeat(43), redirect_uri: 'https://wallet.example/cb' }));
    t.like(leftOf(await redeemToken(steps.ports, input(request, await steps.dpop(key, PATHS.token)))), { _tag: 'WalletUnauthenticated' });
  });
});

test('the token request form: a grant type required and supported, each parameter once, a well-formed PKCE verifier', (t) => {
  t.deepEqual(leftOf(parseTokenRequest({})), { _tag: 'TokenParameterInvalid', reason: 'grant_type is required.' });
  t.like(leftOf(parseTokenRequest({ grant_type: 'password' })), { _tag: 'GrantTypeUnsupported' });
  t.deepEqual(leftOf(parseTokenRequest({ grant_type: PRE_AUTHORIZED_CODE_GRANT })), { _tag: 'TokenParameterInvalid', reason: 'pre-authorized_code is required.' });
  t.deepEqual(leftOf(parseTokenRequest({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': ['a', 'b'] })), { _tag: 'TokenParameterInvalid', reason: 'pre-authorized_code must appear once.' });
  t.deepEqual(leftOf(parseTokenRequest({ grant_type: 'authorization_code', code: 'c', code_verifier: 'short', redirect_uri: 'https://wallet.example/cb' })), {
    _tag: 'TokenParameterInvalid',
    reason: 'code_verifier must be 43-128 characters of [A-Za-z0-9-._~].',
  });
  // client_id is read only when the wallet authenticates: repeated, it refuses only then.
  const parsed = rightOf(parseTokenRequest({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': 'x', client_id: ['a', 'b'] }));
  t.true(isLeft(parsed.clientId));
});
