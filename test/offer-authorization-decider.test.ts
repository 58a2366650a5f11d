// The offer decider's authorization code flow in given / when / then form: a pushed request,
// the authorization started with its request_uri, completed or denied by the integrator, and the
// code redeemed once, with the PKCE challenge, redirect_uri and client of the pushed request, and
// with the DPoP key the pushed or the authorization request bound it to (RFC 9449 section 10).
import test from 'ava';
import { isRight, left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, offerAtIssuer, OfferEvent, type Command } from '../streams/offer.js';
import { givenWhen, stateAfter } from './support/decider.js';
import type { Claims } from '../streams/offerFacts.js';

const ID = 'offer-1';
const TENANT = 'tenant-1';
const T0 = '2026-05-01T10:00:00.000Z';
const T1 = '2026-05-01T10:00:30.000Z';
const T2 = '2026-05-01T10:01:00.000Z';
const T3 = '2026-05-01T10:01:30.000Z';
const EXPIRES = '2026-05-01T10:05:00.000Z';
const claims = { alg: 'A256GCM' as const, iv: 'iv', ciphertext: 'ct', tag: 'tag' };
const otherClaims = { ...claims, ciphertext: 'other' };
const h = (text: string) => Buffer.from(text).toString('base64url');
const wallet = { clientId: 'wallet-1', walletProvider: 'https://provider.example', walletProviderCertificate: 'CN=Provider', walletName: 'Wallet', keyThumbprint: 'jkt-instance' };

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const created = (withClaims = true): OfferEvent => ({
  type: 'OfferCreated',
  data: { offerId: ID, tenantId: TENANT, credentialConfigurationId: 'pid', claims: withClaims ? claims : null, txCode: null, createdAt: T0, expiresAt: EXPIRES, authorizationCode: { authenticationUrl: 'https://login.example' } },
});
const preAuthorized: OfferEvent = { type: 'OfferCreated', data: { offerId: ID, tenantId: TENANT, credentialConfigurationId: 'pid', claims, txCode: null, createdAt: T0, expiresAt: EXPIRES } };
const pushedData = {
  requestUriHash: h('request uri'), wallet, redirectUri: 'https://wallet.example/cb', codeChallenge: h('challenge'), state: 's', credentialConfigurationIds: ['pid'], authorizationDetails: false, expiresAt: '2026-05-01T10:01:00.000Z',
};
const push = (over: Partial<typeof pushedData> = {}): Command => ({ type: 'PushAuthorizationRequest', data: { offerId: ID, ...pushedData, ...over, at: T0 } });
const pushed: OfferEvent = { type: 'AuthorizationRequestPushed', data: { ...pushedData, pushedAt: T0 } };
const startData = { offerId: ID, requestUriHash: h('request uri'), clientId: 'wallet-1', authorizationIdHash: h('authorization id'), dpopJkt: undefined as string | undefined, expiresAt: '2026-05-01T10:04:00.000Z', at: T1 };
const start = (over: Partial<typeof startData> = {}): Command => ({ type: 'StartAuthorization', data: { ...startData, ...over } });
const started: OfferEvent = { type: 'AuthorizationStarted', data: { requestUriHash: h('request uri'), authorizationIdHash: h('authorization id'), startedAt: T1, expiresAt: '2026-05-01T10:04:00.000Z' } };
const completeData = { offerId: ID, authorizationIdHash: h('authorization id'), claims: null, offerClaims: null as Claims | null, codeHash: h('code'), codeExpiresAt: '2026-05-01T10:03:00.000Z', at: T2 };
const complete = (over: Partial<Extract<Command, { type: 'CompleteAuthorization' }>['data']> = {}): Command => ({ type: 'CompleteAuthorization', data: { ...completeData, ...over } });
const completed = (given: typeof claims | null = null): OfferEvent => ({
  type: 'AuthorizationCompleted',
  data: { authorizationIdHash: h('authorization id'), codeHash: h('code'), claims: given, completedAt: T2, codeExpiresAt: '2026-05-01T10:03:00.000Z' },
});
const redeemData = { offerId: ID, codeHash: h('code'), codeChallenge: h('challenge'), redirectUri: 'https://wallet.example/cb', clientId: 'wallet-1', accessTokenHash: h('token'), dpopJkt: 'jkt-dpop', at: T3 };
const redeem = (over: Partial<typeof redeemData> = {}): Command => ({ type: 'RedeemAuthorizationCode', data: { ...redeemData, ...over } });
const redeemed: OfferEvent = { type: 'AuthorizationCodeRedeemed', data: { accessTokenHash: h('token'), dpopJkt: 'jkt-dpop', clientId: 'wallet-1', redeemedAt: T3, expiresAt: EXPIRES } };
const flow = [created(), pushed, started, completed()];

test('given an authorization-code offer, when a wallet pushes a request for its configuration, then AuthorizationRequestPushed with the wallet', (t) => {
  t.deepEqual(scenario([created()], push()), right([pushed]));
});

test('a pushed request is refused for a pre-authorized offer, another configuration, or an offer already authorized', (t) => {
  t.deepEqual(scenario([preAuthorized], push()), left({ _tag: 'NotAuthorizationCodeOffer', offerId: ID }));
  t.deepEqual(scenario([created()], push({ credentialConfigurationIds: ['membership'] })), left({ _tag: 'CredentialConfigurationNotOffered', offerId: ID }));
  t.deepEqual(scenario(flow, push()), left({ _tag: 'AlreadyAuthorized', offerId: ID }));
});

test('given a pushed request, when its request_uri is used by its client, then AuthorizationStarted; used twice, late, unknown or by another client, refused', (t) => {
  t.deepEqual(scenario([created(), pushed], start()), right([started]));
  t.deepEqual(scenario([created(), pushed, started], start()), left({ _tag: 'RequestUriUnknown', offerId: ID }));
  t.deepEqual(scenario([created(), pushed], start({ at: '2026-05-01T10:01:00.000Z' })), left({ _tag: 'RequestUriUnknown', offerId: ID }));
  t.deepEqual(scenario([created(), pushed], start({ requestUriHash: h('another') })), left({ _tag: 'RequestUriUnknown', offerId: ID }));
  t.deepEqual(scenario([created(), pushed], start({ clientId: 'wallet-2' })), left({ _tag: 'ClientMismatch', offerId: ID }));
});

test('given a started authorization, when the integrator completes it, then AuthorizationCompleted with the code\'s hash', (t) => {
  t.deepEqual(scenario([created(), pushed, started], complete()), right([completed()]));
  t.deepEqual(scenario([created(), pushed, started], complete({ authorizationIdHash: h('another') })), left({ _tag: 'AuthorizationUnknown', offerId: ID }));
  t.deepEqual(scenario([created(), pushed, started], complete({ at: '2026-05-01T10:04:30.000Z' })), left({ _tag: 'AuthorizationUnknown', offerId: ID }));
  t.deepEqual(scenario(flow, complete()), left({ _tag: 'AuthorizationEnded', offerId: ID }));
});

test('claims: required at completion when the offer has none, recorded then; refused when they differ from the offer\'s', (t) => {
  t.deepEqual(scenario([created(false), pushed, started], complete()), left({ _tag: 'ClaimsRequired', offerId: ID }));
  t.deepEqual(scenario([created(false), pushed, started], complete({ claims: { given: { name: 'Ada' }, sealed: otherClaims } })), right([completed(otherClaims)]));
  t.like(stateOf([created(false), pushed, started, completed(otherClaims)]), { claims: otherClaims, grant: { phase: 'authorized' } });
  // The decider compares the claims given with the offer's own (opened by the caller).
  t.deepEqual(
    scenario([created(), pushed, started], complete({ claims: { given: { name: 'Bob' }, sealed: otherClaims }, offerClaims: { name: 'Ada' } })),
    left({ _tag: 'ClaimsDiffer', offerId: ID }),
  );
  t.deepEqual(scenario([created(), pushed, started], complete({ claims: { given: { name: 'Ada' }, sealed: otherClaims }, offerClaims: { name: 'Ada' } })), right([completed()]));
});

test('given a started authorization, when the integrator denies it, then AuthorizationDenied and the offer FAILED with access_denied', (t) => {
  const deny: Command = { type: 'DenyAuthorization', data: { offerId: ID, authorizationIdHash: h('authorization id'), error: 'access_denied', at: T2 } };
  t.deepEqual(
    scenario([created(), pushed, started], deny),
    right([
      { type: 'AuthorizationDenied', data: { authorizationIdHash: h('authorization id'), error: 'access_denied', deniedAt: T2 } },
      { type: 'OfferFailed', data: { offerId: ID, tenantId: TENANT, errorDetails: 'access_denied', failedAt: T2 } },
    ]),
  );
});

test('given a completed authorization, when its code is redeemed with the verifier, redirect_uri and client of the request, then AuthorizationCodeRedeemed', (t) => {
  t.deepEqual(scenario(flow, redeem()), right([redeemed]));
  t.like(stateOf([...flow, redeemed]), { grant: { phase: 'tokenIssued', token: { accessTokenHash: h('token'), dpopJkt: 'jkt-dpop' } } });
});

test('a code is refused with a wrong verifier, another redirect_uri, another client, an unknown code or after its expiry', (t) => {
  t.deepEqual(scenario(flow, redeem({ codeChallenge: h('other') })), left({ _tag: 'CodeVerifierMismatch', offerId: ID }));
  t.deepEqual(scenario(flow, redeem({ redirectUri: 'https://evil.example/cb' })), left({ _tag: 'RedirectUriMismatch', offerId: ID }));
  t.deepEqual(scenario(flow, redeem({ clientId: 'wallet-2' })), left({ _tag: 'ClientMismatch', offerId: ID }));
  t.deepEqual(scenario(flow, redeem({ codeHash: h('other') })), left({ _tag: 'AuthorizationCodeUnknown', offerId: ID }));
  t.deepEqual(scenario(flow, redeem({ at: '2026-05-01T10:03:00.000Z' })), left({ _tag: 'AuthorizationCodeUnknown', offerId: ID }));
  t.deepEqual(scenario([created(), pushed, started], redeem()), left({ _tag: 'AuthorizationCodeUnknown', offerId: ID }));
});

test('a code redeemed twice: the second is refused and revokes the token, so the credential endpoint refuses it', (t) => {
  const replayed: OfferEvent = { type: 'AuthorizationCodeReplayed', data: { replayedAt: T3 } };
  t.deepEqual(scenario([...flow, redeemed], redeem()), right([replayed]));
  t.deepEqual(scenario([...flow, redeemed, replayed], redeem()), right([]), 'once revoked, a third use records nothing more');
  const issue: Command = { type: 'IssueCredential', data: { offerId: ID, accessTokenHash: h('token'), at: T3 } };
  t.deepEqual(scenario([...flow, redeemed, replayed], issue), left({ _tag: 'AccessTokenUnknown', offerId: ID }));
});

test('an authorization-code offer has no pre-authorized code to redeem', (t) => {
  const preAuth: Command = { type: 'RedeemPreAuthorizedCode', data: { offerId: ID, txCodeHash: undefined, accessTokenHash: h('token'), dpopJkt: 'jkt', wallet: undefined, maxTxCodeAttempts: 3, at: T1 } };
  t.deepEqual(scenario([created()], preAuth), left({ _tag: 'OfferNotFound', offerId: ID }));
});

test('every step is refused once the offer has expired', (t) => {
  t.deepEqual(scenario([created()], { ...push(), data: { ...push().data, at: EXPIRES } } as Command), left({ _tag: 'OfferHasExpired', offerId: ID }));
  t.deepEqual(scenario(flow, redeem({ at: EXPIRES })), left({ _tag: 'OfferHasExpired', offerId: ID }));
});

const KEY_A = 'jkt-dpop';
const KEY_B = 'jkt-other';
const pushedBound: OfferEvent = { type: 'AuthorizationRequestPushed', data: { ...pushedData, dpopJkt: KEY_A, pushedAt: T0 } };

test('given a pushed request naming a DPoP key, when it is pushed, then AuthorizationRequestPushed records the key', (t) => {
  t.deepEqual(scenario([created()], push({ dpopJkt: KEY_A } as Partial<typeof pushedData>)), right([pushedBound]));
});

test('given a code bound to a DPoP key at PAR, when the token request proves another key, then DpopKeyMismatch and nothing is recorded; with the bound key, AuthorizationCodeRedeemed', (t) => {
  const bound = [created(), pushedBound, started, completed()];
  t.deepEqual(scenario(bound, redeem({ dpopJkt: KEY_B })), left({ _tag: 'DpopKeyMismatch', offerId: ID }));
  // Refused, the code is not spent: the same code with the bound key is redeemed afterwards.
  t.deepEqual(scenario(bound, redeem({ dpopJkt: KEY_A })), right([redeemed]));
});

test('given a code bound by the authorization request\'s dpop_jkt, when the token request proves another key, then DpopKeyMismatch; with that key, redeemed', (t) => {
  const startedBound: OfferEvent = {
    type: 'AuthorizationStarted',
    data: { requestUriHash: h('request uri'), authorizationIdHash: h('authorization id'), startedAt: T1, expiresAt: '2026-05-01T10:04:00.000Z', dpopJkt: KEY_A },
  };
  t.deepEqual(scenario([created(), pushed], start({ dpopJkt: KEY_A })), right([startedBound]));
  const bound = [created(), pushed, startedBound, completed()];
  t.deepEqual(scenario(bound, redeem({ dpopJkt: KEY_B })), left({ _tag: 'DpopKeyMismatch', offerId: ID }));
  t.deepEqual(scenario(bound, redeem({ dpopJkt: KEY_A })), right([redeemed]));
});

test('an authorization request naming another DPoP key than its pushed request is refused; the same key is not recorded twice', (t) => {
  t.deepEqual(scenario([created(), pushedBound], start({ dpopJkt: KEY_B })), left({ _tag: 'DpopKeyMismatch', offerId: ID }));
  t.deepEqual(scenario([created(), pushedBound], start({ dpopJkt: KEY_A })), right([started]));
  t.like(stateOf([created(), pushedBound, started]), { grant: { phase: 'authorizationPending', authorization: { dpopJkt: KEY_A } } });
});

test('a code bound to no DPoP key is redeemed with any key, as before the binding existed (events recorded without dpopJkt still read)', (t) => {
  t.deepEqual(scenario(flow, redeem({ dpopJkt: KEY_B })), right([{ ...redeemed, data: { ...redeemed.data, dpopJkt: KEY_B } } as OfferEvent]));
  const recordedBefore = { type: 'AuthorizationRequestPushed', data: { ...pushedData, pushedAt: T0 } };
  t.true(isRight(OfferEvent.decode(recordedBefore)));
  t.true(isRight(OfferEvent.decode(pushedBound)));
});

test('each step of the authorization code flow moves the grant to its phase: offered, authorization pending, authorized, token issued, token revoked', (t) => {
  const replayed: OfferEvent = { type: 'AuthorizationCodeReplayed', data: { replayedAt: T3 } };
  const phaseAfter = (events: OfferEvent[]) => {
    const state = stateOf(events);
    return state.status === 'none' ? 'none' : state.grant.phase;
  };
  t.is(phaseAfter([created()]), 'offered');
  t.is(phaseAfter([created(), pushed]), 'offered');
  t.is(phaseAfter([created(), pushed, started]), 'authorizationPending');
  t.is(phaseAfter(flow), 'authorized');
  t.is(phaseAfter([...flow, redeemed]), 'tokenIssued');
  t.is(phaseAfter([...flow, redeemed, replayed]), 'tokenRevoked');
  const denied: OfferEvent = { type: 'AuthorizationDenied', data: { authorizationIdHash: h('authorization id'), error: 'access_denied', deniedAt: T2 } };
  t.is(phaseAfter([created(), pushed, started, denied]), 'denied');
});

test('a settled authorization is not completed again, and a request pushed meanwhile cannot start another', (t) => {
  const pushedAgain: OfferEvent = { type: 'AuthorizationRequestPushed', data: { ...pushedData, requestUriHash: h('second'), pushedAt: T1 } };
  t.deepEqual(scenario([created(), pushed, started, pushedAgain, completed()], start({ requestUriHash: h('second') })), left({ _tag: 'AlreadyAuthorized', offerId: ID }));
  t.deepEqual(scenario([...flow, redeemed], complete()), left({ _tag: 'AuthorizationEnded', offerId: ID }));
  // While the authorization is pending, a request pushed again starts a new one.
  t.deepEqual(scenario([created(), pushed, started, pushedAgain], start({ requestUriHash: h('second') })), right([{ ...started, data: { ...started.data, requestUriHash: h('second') } } as OfferEvent]));
});

test('claims given when the offer has them but the caller could not open the offer\'s own are refused as different (fail closed)', (t) => {
  t.deepEqual(scenario([created(), pushed, started], complete({ claims: { given: { name: 'Ada' }, sealed: otherClaims }, offerClaims: null })), left({ _tag: 'ClaimsDiffer', offerId: ID }));
});

test('given an authorization-code offer of a tenant\'s own issuer, its request_uri pushed, started or its code redeemed at another issuer is OfferNotFound; the integrator\'s answer is not an issuer\'s', (t) => {
  const issuer = 'https://connector.example/issuers/tenant-1';
  const base = created();
  const own: OfferEvent = base.type === 'OfferCreated' ? { ...base, data: { ...base.data, credentialIssuer: issuer, configurationRevision: 1 } } : base;
  const elsewhere = givenWhen({ decide: offerAtIssuer('https://connector.example/issuers/tenant-2').decide, evolve, initialState });
  const deployment = givenWhen({ decide: offerAtIssuer(undefined).decide, evolve, initialState });
  const atOwn = givenWhen({ decide: offerAtIssuer(issuer).decide, evolve, initialState });
  const notFound = left({ _tag: 'OfferNotFound', offerId: ID });
  for (const other of [elsewhere, deployment]) {
    t.deepEqual(other([own], push()), notFound);
    t.deepEqual(other([own, pushed], start()), notFound);
    t.deepEqual(other([own, pushed, started, completed()], redeem()), notFound);
    t.true(isRight(other([own, pushed, started], complete())));
  }
  t.deepEqual(atOwn([own], push()), right([pushed]));
  t.deepEqual(atOwn([own, pushed, started, completed()], redeem()), right([redeemed]));
});
