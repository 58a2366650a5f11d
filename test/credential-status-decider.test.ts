// The credential-status and status-index deciders in given / when / then form: the events a stream
// already holds, a command, and the events it decides (or the rejection). Then the store's part:
// two commands decided on the same revision, of which exactly one is appended.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import {
  credentialStatus,
  credentialStatusStream,
  decide,
  evolve,
  initialState,
  type Command,
  type CredentialStatus,
  type Event,
  type StatusReference,
} from '../streams/credentialStatus.js';
import * as statusIndex from '../streams/statusIndex.js';
import { decodeRecorded } from '../streams/event.js';
import { handleCommand, loadStream } from '../src/eventstore/handle.js';
import type { EventStore } from '../src/eventstore/port.js';
import { openStore } from './support/readmodels.js';
import { rightOf } from './support/either.js';
import { givenWhen, stateAfter } from './support/decider.js';

const OFFER = 'offer-1';
const TENANT = 'tenant-1';
const AT = '2026-05-01T10:00:00.000Z';
const REFERENCE: StatusReference = { listId: 1, idx: 4711, uri: 'https://issuer.example/status-lists/1' };

/** Folds the given events, then decides the command. */
const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const allocate: Command = { type: 'AllocateCredentialStatus', data: { offerId: OFFER, tenantId: TENANT, references: [REFERENCE], at: AT } };
const set = (status: CredentialStatus, changeId: string): Command => ({ type: 'SetCredentialStatus', data: { status, changeId, at: AT } });

const allocated: Event = { type: 'CredentialStatusAllocated', data: { offerId: OFFER, tenantId: TENANT, references: [REFERENCE], allocatedAt: AT } };
const changed = (type: 'CredentialSuspended' | 'CredentialRevoked' | 'CredentialReinstated', changeId: string): Event => ({
  type,
  data: { offerId: OFFER, tenantId: TENANT, changeId, at: AT },
});
const suspended = (id: string) => changed('CredentialSuspended', id);
const revoked = (id: string) => changed('CredentialRevoked', id);
const reinstated = (id: string) => changed('CredentialReinstated', id);

// --- allocation

test('given nothing, when the credential endpoint allocates, then the entries are recorded and the status is valid', (t) => {
  t.deepEqual(scenario([], allocate), right([allocated]));
  t.like(stateOf([allocated]), { status: 'valid', references: [REFERENCE], tenantId: TENANT });
});

test('given an allocation, when another allocation comes, then it is refused', (t) => {
  t.deepEqual(scenario([allocated], allocate), left({ _tag: 'AlreadyAllocated' }));
});

// --- status changes, every row of the state table

test('given nothing issued, when any status is set, then it is refused: nothing issued yet', (t) => {
  for (const status of ['valid', 'suspended', 'revoked'] as const) t.deepEqual(scenario([], set(status, 'c1')), left({ _tag: 'NothingIssued' }), status);
});

test('given valid, when suspended, then CredentialSuspended, with the change id', (t) => {
  t.deepEqual(scenario([allocated], set('suspended', 'c1')), right([suspended('c1')]));
});

test('given valid, when revoked, then CredentialRevoked', (t) => {
  t.deepEqual(scenario([allocated], set('revoked', 'c1')), right([revoked('c1')]));
});

test('given suspended, when set valid, then CredentialReinstated', (t) => {
  t.deepEqual(scenario([allocated, suspended('c1')], set('valid', 'c2')), right([reinstated('c2')]));
});

test('given suspended, when revoked, then CredentialRevoked', (t) => {
  t.deepEqual(scenario([allocated, suspended('c1')], set('revoked', 'c2')), right([revoked('c2')]));
});

test('given revoked, when set valid or suspended, then it is refused: revocation is final', (t) => {
  t.deepEqual(scenario([allocated, revoked('c1')], set('valid', 'c2')), left({ _tag: 'RevocationIsFinal' }));
  t.deepEqual(scenario([allocated, revoked('c1')], set('suspended', 'c2')), left({ _tag: 'RevocationIsFinal' }));
  t.deepEqual(scenario([allocated, suspended('c1'), revoked('c2')], set('valid', 'c3')), left({ _tag: 'RevocationIsFinal' }));
});

test('given a status, when the same status is set again, then nothing is recorded (PUT is idempotent)', (t) => {
  t.deepEqual(scenario([allocated], set('valid', 'c1')), right([]));
  t.deepEqual(scenario([allocated, suspended('c1')], set('suspended', 'c2')), right([]));
  t.deepEqual(scenario([allocated, revoked('c1')], set('revoked', 'c2')), right([]));
});

test('given suspend, reinstate, suspend again, then each change has its own id (its callback\'s eventId), so each is a delivery', (t) => {
  const history = [allocated, suspended('c1'), reinstated('c2')];
  const again = rightOf(scenario(history, set('suspended', 'c3')));
  t.deepEqual(again, [suspended('c3')]);
  const ids = [...history, ...again].flatMap((e) => (e.type === 'CredentialStatusAllocated' ? [] : [e.data.changeId]));
  t.deepEqual(ids, ['c1', 'c2', 'c3']);
  t.like(stateOf([...history, ...again]), { status: 'suspended' });
});

test('every decided event is what the stream\'s codec reads back', (t) => {
  for (const event of [allocated, suspended('c1'), revoked('c2'), reinstated('c3')]) {
    const recorded = { streamId: credentialStatusStream(OFFER), id: 'e', type: event.type, revision: 0, position: { commit: 1n, prepare: 1n }, data: event.data as never, metadata: null, created: new Date() };
    t.deepEqual(decodeRecorded(credentialStatus.codec, recorded), event);
  }
});

// --- status index

const allocateIndex = (idx: number, listSize = 16): statusIndex.Command => ({
  type: 'AllocateStatusIndex',
  data: { listId: 1, idx, listSize, offerId: OFFER, at: AT },
});
const indexScenario = givenWhen(statusIndex);

test('given a free index, when allocated, then StatusIndexAllocated; given it taken, then IndexTaken', (t) => {
  const taken = rightOf(indexScenario([], allocateIndex(15)));
  t.deepEqual(taken, [{ type: 'StatusIndexAllocated', data: { listId: 1, idx: 15, listSize: 16, offerId: OFFER, allocatedAt: AT } }]);
  t.deepEqual(indexScenario(taken, { ...allocateIndex(15), data: { ...allocateIndex(15).data, offerId: 'another offer' } }), left({ _tag: 'IndexTaken' }));
});

test('given any state, when an index outside the list is allocated, then IndexOutsideList', (t) => {
  for (const idx of [16, -1, 1.5]) t.deepEqual(indexScenario([], allocateIndex(idx)), left({ _tag: 'IndexOutsideList' }), String(idx));
});

// --- the store's optimistic concurrency

const withStore = async (body: (store: EventStore) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), 'credential-status-'));
  const store = await openStore(dir);
  try {
    await body(store);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

const metadata = { actor: 'test' };

test('concurrent revoke and suspend decided on one revision: exactly one is appended there, the other loses the race', async (t) => {
  await withStore(async (store) => {
    const stream = credentialStatusStream(OFFER);
    rightOf(await handleCommand(store, credentialStatus, stream, allocate, { commandId: 'allocate', metadata }));
    const loaded = rightOf(await loadStream(store, credentialStatus, stream));
    const [revoke, suspend] = await Promise.all([
      handleCommand(store, credentialStatus, stream, set('revoked', 'r'), { commandId: 'r', metadata, loaded }),
      handleCommand(store, credentialStatus, stream, set('suspended', 's'), { commandId: 's', metadata, loaded }),
    ]);
    const outcomes = [revoke, suspend];
    t.is(outcomes.filter((o) => !isLeft(o)).length, 1);
    const lost = outcomes.find(isLeft)!;
    t.like(lost.left, { kind: 'store', error: { _tag: 'WrongExpectedRevision', expected: 0, actual: 1 } });
    const read = await store.readStream(stream);
    if (read._tag !== 'Found') return t.fail('no stream');
    t.is(read.events.length, 2);
    t.is(read.events[1]!.revision, 1);

    // The loser, decided again on the stream as it now is: after a revoke it is refused for good;
    // after a suspend the revoke wins the next revision.
    const winner = read.events[1]!.type;
    const retried = await handleCommand(store, credentialStatus, stream, winner === 'CredentialRevoked' ? set('suspended', 's') : set('revoked', 'r'), {
      commandId: winner === 'CredentialRevoked' ? 's' : 'r',
      metadata,
    });
    if (winner === 'CredentialRevoked') t.deepEqual(retried, left({ kind: 'domain', error: { _tag: 'RevocationIsFinal' } }));
    else t.like(rightOf(retried), { revision: 2, events: [{ type: 'CredentialRevoked' }] });
  });
});

test('two allocations of one status index at once: exactly one takes it', async (t) => {
  await withStore(async (store) => {
    const stream = statusIndex.statusIndexStream(1, 3);
    const attempts = await Promise.all(
      ['offer-a', 'offer-b', 'offer-c'].map((offerId) =>
        handleCommand(store, statusIndex.statusIndex, stream, { ...allocateIndex(3), data: { ...allocateIndex(3).data, offerId } }, { commandId: offerId, metadata }),
      ),
    );
    t.is(attempts.filter((a) => !isLeft(a)).length, 1);
    const loaded = rightOf(await loadStream(store, statusIndex.statusIndex, stream));
    t.is(loaded.expectedRevision, 0);
  });
});
