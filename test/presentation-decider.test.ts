// The presentation decider in given / when / then form: the events a presentation stream already
// holds, a command, and the events it decides (or the rejection). One test per row of the
// verification state table (the connector specification, "States and transitions"), the
// request-object fetch rule, and each refusal.
import test from 'ava';
import { isRight, left, right } from 'fp-ts/lib/Either.js';
import { presentation, PresentationEvent, type Channel, type Command, type FetchedRequest, type OutcomeCommand, type PresentationTerminalEvent } from '../streams/presentation.js';
import { givenWhen, stateAfter } from './support/decider.js';

const STATE = 'state-1';
const TENANT = 'tenant-1';
const ended = { state: STATE, tenantId: TENANT };
const T0 = '2026-05-01T10:00:00.000Z';
const T1 = '2026-05-01T10:01:00.000Z';
const T2 = '2026-05-01T10:02:00.000Z';
const EXPIRES = '2026-05-01T10:05:00.000Z';
const sealed = (ciphertext: string) => ({ alg: 'A256GCM' as const, iv: 'iv', ciphertext, tag: 'tag' });

const scenario = givenWhen(presentation);
const stateOf = stateAfter(presentation);

const request: Command = {
  type: 'RequestPresentation',
  data: { state: STATE, tenantId: TENANT, credentialQueryIds: ['pid'], transactionDataCount: 0, request: sealed('request'), expiresAt: EXPIRES, at: T0 },
};
const requested: PresentationEvent = {
  type: 'PresentationRequested',
  data: { state: STATE, tenantId: TENANT, credentialQueryIds: ['pid'], transactionDataCount: 0, request: sealed('request'), expiresAt: EXPIRES, createdAt: T0 },
};
const newRequest = (flowType: FetchedRequest['flowType'], kid: string): FetchedRequest => ({ kid, flowType, nonce: `nonce-${kid}`, responseKey: sealed(kid) });
const fetch = (flowType: FetchedRequest['flowType'], kid: string, at = T1): Command => ({ type: 'FetchRequestObject', data: { state: STATE, request: newRequest(flowType, kid), at } });
const fetched = (flowType: FetchedRequest['flowType'], kid: string, at = T1): PresentationEvent => ({
  type: 'PresentationRequestFetched',
  data: { ...newRequest(flowType, kid), fetchedAt: at },
});

const step = (at = T2, channel: Channel = 'request_uri') => ({ state: STATE, at, channel });
const fulfil = (kid = 'k1', at = T2): OutcomeCommand => ({ type: 'Fulfil', data: { ...step(at), kid, responseCode: 'rc', presentedCredentials: sealed('credentials') } });
const reject: OutcomeCommand = { type: 'Reject', data: { ...step(), error: 'access_denied' } };
const failProcessing: OutcomeCommand = { type: 'FailProcessing', data: { ...step(), errorDetails: 'undecryptable' } };
const failVerification = (kid: string, trustEnforcement: boolean): OutcomeCommand => ({
  type: 'FailVerification',
  data: { ...step(), kid, responseCode: 'rc', errorDetails: 'bad signature', trustEnforcement, trustListDigests: ['d1'] },
});

const fulfilled: PresentationTerminalEvent = {
  type: 'PresentationFulfilled',
  data: {
    ...ended, at: T2, kid: 'k1', flowType: 'same-device', responseCode: 'rc', presentedCredentials: sealed('credentials'),
  },
};
const rejected: PresentationTerminalEvent = {
  type: 'PresentationRejected',
  data: { ...ended, at: T2, error: 'access_denied' },
};
const processingFailed: PresentationTerminalEvent = {
  type: 'PresentationProcessingFailed',
  data: { ...ended, at: T2, errorDetails: 'undecryptable' },
};
const verificationFailed = (kid: string, flowType: FetchedRequest['flowType'], responseCode: string | null): PresentationTerminalEvent => ({
  type: 'PresentationVerificationFailed',
  data: { ...ended, at: T2, kid, flowType, errorDetails: 'bad signature', responseCode, trustListDigests: ['d1'] },
});
const expiredAt = (at: string): PresentationTerminalEvent => ({ type: 'PresentationExpired', data: { ...ended, at } });
const expire = (at: string): Command => ({ type: 'Expire', data: { state: STATE, at } });

test('given nothing, when a presentation is requested, then PresentationRequested (request created); given it, then PresentationExists', (t) => {
  t.deepEqual(scenario([], request), right([requested]));
  t.like(stateOf([requested]), { status: 'open', fetched: [] });
  t.deepEqual(scenario([requested], request), left({ _tag: 'PresentationExists', state: STATE }));
});

test('given nothing, when a DC API request offered in org-iso-mdoc is made, then its sealed Annex C recipient key is recorded beside the response key, and the session offers it', (t) => {
  const dcApi = { expectedOrigins: ['https://shop.example'], protocols: ['openid4vp-v1-signed', 'org-iso-mdoc'] as const, kid: 'k1', nonce: 'nonce-k1', responseKey: sealed('k1'), annexCRecipientKey: sealed('annex-c') };
  const asked: Command = { ...request, data: { ...request.data, dcApi: { ...dcApi, protocols: [...dcApi.protocols] } } } as Command;
  const decided: PresentationEvent = { ...requested, data: { ...requested.data, dcApi: { ...dcApi, protocols: [...dcApi.protocols] } } } as PresentationEvent;
  t.deepEqual(scenario([], asked), right([decided]));
  t.like(stateOf([decided]), {
    status: 'open',
    channel: 'dc_api',
    fetched: [{ kid: 'k1', flowType: 'dc_api', nonce: 'nonce-k1', responseKey: sealed('k1') }],
    dcApi: { expectedOrigins: ['https://shop.example'], protocols: ['openid4vp-v1-signed', 'org-iso-mdoc'], annexCRecipientKey: sealed('annex-c') },
  });
});

test('given an open request, when a flow type is first fetched, then PresentationRequestFetched; fetched again, then nothing (one recorded request per flow type)', (t) => {
  t.deepEqual(scenario([requested], fetch('same-device', 'k1')), right([fetched('same-device', 'k1')]));
  t.deepEqual(scenario([requested, fetched('same-device', 'k1')], fetch('same-device', 'k2', T2)), right([]));
  t.deepEqual(scenario([requested, fetched('same-device', 'k1')], fetch('cross-device', 'k2', T2)), right([fetched('cross-device', 'k2', T2)]));
  t.like(stateOf([requested, fetched('same-device', 'k1'), fetched('cross-device', 'k2', T2)]), {
    fetched: [newRequest('same-device', 'k1'), newRequest('cross-device', 'k2')],
  });
});

test('given an unknown, ended or expired request, when its request object is fetched, then refused', (t) => {
  t.deepEqual(scenario([], fetch('same-device', 'k1')), left({ _tag: 'UnknownSession' }));
  t.deepEqual(scenario([requested, rejected], fetch('same-device', 'k1')), left({ _tag: 'SessionFinished' }));
  t.deepEqual(scenario([requested], fetch('same-device', 'k1', EXPIRES)), left({ _tag: 'SessionExpired' }));
});

for (const [status, when, event] of [
  ['FULFILLED', fulfil(), fulfilled],
  ['REJECTED', reject, rejected],
  ['PROCESSING_ERROR', failProcessing, processingFailed],
  ['VERIFICATION_FAILED', failVerification('k1', false), verificationFailed('k1', 'same-device', null)],
] as const) {
  test(`given an open request, when the wallet's answer comes to ${status} before the expiry, then that outcome, once`, (t) => {
    const given = [requested, fetched('same-device', 'k1')];
    t.deepEqual(scenario(given, when), right([event]));
    t.like(stateOf([...given, event]), { status: 'finished', outcome: status });
    t.deepEqual(scenario([...given, event], when), left({ _tag: 'SessionFinished' }));
    t.deepEqual(scenario([...given, event], reject), left({ _tag: 'SessionFinished' }));
  });
}

test('when the presentation is fulfilled, then the response code is recorded same-device only (the browser is sent back), with the flow type of the request answered', (t) => {
  const given = [requested, fetched('same-device', 'k1'), fetched('cross-device', 'k2')];
  t.deepEqual(scenario(given, fulfil('k1')), right([fulfilled]));
  t.deepEqual(scenario(given, fulfil('k2')), right([{ ...fulfilled, data: { ...fulfilled.data, kid: 'k2', flowType: 'cross-device', responseCode: null } }]));
});

test('when verification fails, then a response code only for a trust-enforcement failure in same-device flow', (t) => {
  const given = [requested, fetched('same-device', 'k1'), fetched('cross-device', 'k2')];
  t.deepEqual(scenario(given, failVerification('k1', true)), right([verificationFailed('k1', 'same-device', 'rc')]));
  t.deepEqual(scenario(given, failVerification('k1', false)), right([verificationFailed('k1', 'same-device', null)]));
  t.deepEqual(scenario(given, failVerification('k2', true)), right([verificationFailed('k2', 'cross-device', null)]));
});

test('given an open request, when an answer names a request key it never handed out, then UnknownRequestKey', (t) => {
  t.deepEqual(scenario([requested, fetched('same-device', 'k1')], fulfil('k9')), left({ _tag: 'UnknownRequestKey', kid: 'k9' }));
  t.deepEqual(scenario([requested], failVerification('k1', false)), left({ _tag: 'UnknownRequestKey', kid: 'k1' }));
});

test('given an open request, when the time-out comes, then PresentationExpired (EXPIRED); before it, or once ended, nothing', (t) => {
  t.deepEqual(scenario([requested], expire(EXPIRES)), right([expiredAt(EXPIRES)]));
  t.like(stateOf([requested, expiredAt(EXPIRES)]), { status: 'finished', outcome: 'EXPIRED' });
  t.deepEqual(scenario([requested], expire(T2)), right([]));
  t.deepEqual(scenario([requested, fulfilled], expire(EXPIRES)), right([]));
  t.deepEqual(scenario([requested, expiredAt(EXPIRES)], expire(EXPIRES)), right([]));
  t.deepEqual(scenario([], expire(EXPIRES)), right([]));
});

test('the expiry and response race: an answer after the expiry ends the request as EXPIRED; an answer after the time-out is refused', (t) => {
  t.deepEqual(scenario([requested, fetched('same-device', 'k1')], fulfil('k1', EXPIRES)), right([expiredAt(EXPIRES)]));
  t.deepEqual(scenario([requested, expiredAt(EXPIRES)], fulfil()), left({ _tag: 'SessionFinished' }));
  t.deepEqual(scenario([requested, fulfilled], expire(EXPIRES)), right([]));
});

test('given no request, when an outcome is recorded, then UnknownSession', (t) => {
  t.deepEqual(scenario([], reject), left({ _tag: 'UnknownSession' }));
});

// --- a session for the Digital Credentials API: its request made at creation, answered on its own channel

const dcApi = { expectedOrigins: ['https://shop.example'], protocols: ['openid4vp-v1-signed' as const], kid: 'kd', nonce: 'nonce-kd', responseKey: sealed('kd') };
const requestDcApi: Command = { ...request, data: { ...request.data, dcApi } } as Command;
const requestedDcApi: PresentationEvent = { ...requested, data: { ...requested.data, dcApi } } as PresentationEvent;
const overDcApi = (command: OutcomeCommand): OutcomeCommand => ({ ...command, data: { ...command.data, channel: 'dc_api' } }) as OutcomeCommand;

test('given nothing, when a DC API presentation is requested, then PresentationRequested records its request, origins and protocols; its one request is the DC API one', (t) => {
  t.deepEqual(scenario([], requestDcApi), right([requestedDcApi]));
  t.like(stateOf([requestedDcApi]), {
    status: 'open',
    channel: 'dc_api',
    dcApi: { expectedOrigins: ['https://shop.example'], protocols: ['openid4vp-v1-signed'] },
    fetched: [{ kid: 'kd', flowType: 'dc_api', nonce: 'nonce-kd', responseKey: sealed('kd') }],
  });
  t.like(stateOf([requested]), { channel: 'request_uri' });
});

test('given a DC API session, when a request URI is fetched, then OtherChannel and nothing recorded', (t) => {
  t.deepEqual(scenario([requestedDcApi], fetch('cross-device', 'k1')), left({ _tag: 'OtherChannel', channel: 'dc_api' }));
  t.deepEqual(scenario([requestedDcApi], fetch('same-device', 'k1')), left({ _tag: 'OtherChannel', channel: 'dc_api' }));
});

for (const [status, when, event] of [
  ['FULFILLED', fulfil('kd'), { ...fulfilled, data: { ...fulfilled.data, kid: 'kd', flowType: 'dc_api', responseCode: null } }],
  ['REJECTED', reject, rejected],
  ['PROCESSING_ERROR', failProcessing, processingFailed],
  ['VERIFICATION_FAILED', failVerification('kd', true), verificationFailed('kd', 'dc_api', null)],
] as const) {
  test(`given a DC API session, when its answer on the DC API comes to ${status}, then that outcome (no response code: nobody is redirected), once`, (t) => {
    t.deepEqual(scenario([requestedDcApi], overDcApi(when)), right([event]));
    t.deepEqual(scenario([requestedDcApi, event], overDcApi(when)), left({ _tag: 'SessionFinished' }));
  });
}

test('given a DC API session, when an answer comes by a response URI, then OtherChannel; and a request-URI session refuses an answer over the DC API', (t) => {
  for (const when of [fulfil('kd'), reject, failProcessing, failVerification('kd', false)]) {
    t.deepEqual(scenario([requestedDcApi], when), left({ _tag: 'OtherChannel', channel: 'dc_api' }));
    t.deepEqual(scenario([requested, fetched('cross-device', 'kd')], overDcApi(when)), left({ _tag: 'OtherChannel', channel: 'request_uri' }));
  }
});

test('given a DC API session, when its answer comes after the expiry, then SessionExpired and nothing recorded (the time-out ends it as EXPIRED)', (t) => {
  t.deepEqual(scenario([requestedDcApi], overDcApi(fulfil('kd', EXPIRES))), left({ _tag: 'SessionExpired' }));
  t.deepEqual(scenario([requestedDcApi], expire(EXPIRES)), right([expiredAt(EXPIRES)]));
});

test('given a DC API session, when an answer names a key it never handed out, then UnknownRequestKey', (t) => {
  t.deepEqual(scenario([requestedDcApi], overDcApi(fulfil('k1'))), left({ _tag: 'UnknownRequestKey', kid: 'k1' }));
});

test('RequestPresentation records the client id the request was made under, and the session keeps it', (t) => {
  const withClientId: Command = { ...request, data: { ...request.data, clientId: 'x509_hash:tenant' } } as Command;
  const decided = scenario([], withClientId);
  t.deepEqual(decided, right([{ ...requested, data: { ...requested.data, clientId: 'x509_hash:tenant' } }]));
  t.like(stateOf([{ ...requested, data: { ...requested.data, clientId: 'x509_hash:tenant' } }]), { status: 'open', clientId: 'x509_hash:tenant' });
});

test('a PresentationRequested written before client ids were recorded replays to a session without one (the deployment verifier\'s)', (t) => {
  t.true(isRight(PresentationEvent.decode(requested)));
  const session = stateOf([requested]);
  t.is(session.status, 'open');
  t.false('clientId' in session);
});
