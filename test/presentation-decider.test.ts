// The presentation decider in given / when / then form: the events a presentation stream already
// holds, a command, and the events it decides (or the rejection). One test per row of the
// verification state table (the connector specification, "States and transitions"), the
// request-object fetch rule, and each refusal.
import test from 'ava';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import {
  decide,
  evolve,
  initialState,
  type Command,
  type DomainError,
  type FetchedRequest,
  type PresentationEvent,
  type PresentationTerminalEvent,
} from '../streams/presentation.js';

const STATE = 'state-1';
const TENANT = 'tenant-1';
const ended = { state: STATE, tenantId: TENANT };
const T0 = '2026-05-01T10:00:00.000Z';
const T1 = '2026-05-01T10:01:00.000Z';
const T2 = '2026-05-01T10:02:00.000Z';
const EXPIRES = '2026-05-01T10:05:00.000Z';
const sealed = (ciphertext: string) => ({ alg: 'A256GCM' as const, iv: 'iv', ciphertext, tag: 'tag' });

const scenario = (given: readonly PresentationEvent[], when: Command): Either<DomainError, PresentationEvent[]> => decide(when, given.reduce(evolve, initialState));

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
const verificationFailed: PresentationTerminalEvent = {
  type: 'PresentationVerificationFailed',
  data: {
    ...ended, at: T2, kid: 'k1', flowType: 'cross-device', errorDetails: 'bad signature', responseCode: null,
  },
};
const expiredAt = (at: string): PresentationTerminalEvent => ({ type: 'PresentationExpired', data: { ...ended, at } });
const outcome = (event: PresentationTerminalEvent, at = T2): Command => ({ type: 'RecordOutcome', data: { state: STATE, outcome: event, at } });
const expire = (at: string): Command => ({ type: 'ExpirePresentation', data: { state: STATE, at } });

test('given nothing, when a presentation is requested, then PresentationRequested (request created); given it, then PresentationExists', (t) => {
  t.deepEqual(scenario([], request), right([requested]));
  t.like([requested].reduce(evolve, initialState), { status: 'open', fetched: [] });
  t.deepEqual(scenario([requested], request), left({ _tag: 'PresentationExists', state: STATE }));
});

test('given an open request, when a flow type is first fetched, then PresentationRequestFetched; fetched again, then nothing (one recorded request per flow type)', (t) => {
  t.deepEqual(scenario([requested], fetch('same-device', 'k1')), right([fetched('same-device', 'k1')]));
  t.deepEqual(scenario([requested, fetched('same-device', 'k1')], fetch('same-device', 'k2', T2)), right([]));
  t.deepEqual(scenario([requested, fetched('same-device', 'k1')], fetch('cross-device', 'k2', T2)), right([fetched('cross-device', 'k2', T2)]));
  t.like([requested, fetched('same-device', 'k1'), fetched('cross-device', 'k2', T2)].reduce(evolve, initialState), {
    fetched: [newRequest('same-device', 'k1'), newRequest('cross-device', 'k2')],
  });
});

test('given an unknown, ended or expired request, when its request object is fetched, then refused', (t) => {
  t.deepEqual(scenario([], fetch('same-device', 'k1')), left({ _tag: 'UnknownSession' }));
  t.deepEqual(scenario([requested, rejected], fetch('same-device', 'k1')), left({ _tag: 'SessionFinished' }));
  t.deepEqual(scenario([requested], fetch('same-device', 'k1', EXPIRES)), left({ _tag: 'SessionExpired' }));
});

for (const [status, event] of [
  ['FULFILLED', fulfilled],
  ['REJECTED', rejected],
  ['PROCESSING_ERROR', processingFailed],
  ['VERIFICATION_FAILED', verificationFailed],
] as const) {
  test(`given an open request, when the wallet's answer comes to ${status} before the expiry, then that outcome, once`, (t) => {
    const given = [requested, fetched('same-device', 'k1')];
    t.deepEqual(scenario(given, outcome(event)), right([event]));
    t.like([...given, event].reduce(evolve, initialState), { status: 'finished', outcome: status });
    t.deepEqual(scenario([...given, event], outcome(event)), left({ _tag: 'SessionFinished' }));
    t.deepEqual(scenario([...given, event], outcome(rejected)), left({ _tag: 'SessionFinished' }));
  });
}

test('given an open request, when the time-out comes, then PresentationExpired (EXPIRED); before it, or once ended, nothing', (t) => {
  t.deepEqual(scenario([requested], expire(EXPIRES)), right([expiredAt(EXPIRES)]));
  t.like([requested, expiredAt(EXPIRES)].reduce(evolve, initialState), { status: 'finished', outcome: 'EXPIRED' });
  t.deepEqual(scenario([requested], expire(T2)), right([]));
  t.deepEqual(scenario([requested, fulfilled], expire(EXPIRES)), right([]));
  t.deepEqual(scenario([requested, expiredAt(EXPIRES)], expire(EXPIRES)), right([]));
  t.deepEqual(scenario([], expire(EXPIRES)), right([]));
});

test('the expiry and response race: an answer after the expiry ends the request as EXPIRED; an answer after the time-out is refused', (t) => {
  t.deepEqual(scenario([requested, fetched('same-device', 'k1')], outcome(fulfilled, EXPIRES)), right([expiredAt(EXPIRES)]));
  t.deepEqual(scenario([requested, expiredAt(EXPIRES)], outcome(fulfilled)), left({ _tag: 'SessionFinished' }));
  t.deepEqual(scenario([requested, fulfilled], expire(EXPIRES)), right([]));
});

test('given no request, when an outcome is recorded, then UnknownSession', (t) => {
  t.deepEqual(scenario([], outcome(rejected)), left({ _tag: 'UnknownSession' }));
});
