// The Idempotency-Key decider in given / when / then form: the events an idempotency stream
// already holds (one key's generations), a command, and the events it decides (or the refusal).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import type { Sealed } from '../streams/dataKey.js';
import { CLAIM_LEASE_MS, decide, evolve, initialState, supersededClaim, type Command, type IdempotencyEvent, type RecordedReply } from '../streams/idempotency.js';
import { givenWhen, stateAfter } from './support/decider.js';

const AT = '2026-05-01T10:00:00.000Z';
const EXPIRES = '2026-05-02T10:00:00.000Z';
const reply: Sealed<RecordedReply> = { alg: 'A256GCM', iv: 'iv', ciphertext: 'ct', tag: 'tag' };
const plus = (ms: number): string => new Date(Date.parse(AT) + ms).toISOString();

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const claim = (claimId: string, at = AT, options: { fingerprint?: string; replyGone?: boolean } = {}): Command => ({
  type: 'ClaimKey',
  data: { claimId, fingerprint: options.fingerprint ?? 'same', at, expiresAt: EXPIRES, replyGone: options.replyGone ?? false },
});
const claimed = (claimId: string, at = AT, fingerprint = 'same'): IdempotencyEvent => ({ type: 'IdempotencyKeyClaimed', data: { claimId, fingerprint, claimedAt: at, expiresAt: EXPIRES } });
const recorded: IdempotencyEvent = { type: 'IdempotentReplyRecorded', data: { claimId: 'c1', status: 201, reply } };
const released: IdempotencyEvent = { type: 'IdempotencyKeyReleased', data: { claimId: 'c1', releasedAt: AT } };
const shredded: IdempotencyEvent = { type: 'IdempotentReplyShredded', data: { claimId: 'c1', shreddedAt: EXPIRES } };

test('given a free key (never used, released or shredded), when claimed, then IdempotencyKeyClaimed', (t) => {
  for (const given of [[], [claimed('c1'), released], [claimed('c1'), recorded, shredded]]) {
    t.deepEqual(scenario(given, claim('c2')), right([claimed('c2')]));
  }
});

test('given a running claim, when the same request claims within the lease, then ClaimInProgress; after the lease, it claims', (t) => {
  t.deepEqual(scenario([claimed('c1')], claim('c2', plus(CLAIM_LEASE_MS - 1))), left({ _tag: 'ClaimInProgress' }));
  t.deepEqual(scenario([claimed('c1')], claim('c2', plus(CLAIM_LEASE_MS))), right([claimed('c2', plus(CLAIM_LEASE_MS))]));
});

test('given a claim, when another request claims the key before it expires, then KeyUsedForAnotherRequest', (t) => {
  t.deepEqual(scenario([claimed('c1')], claim('c2', AT, { fingerprint: 'other' })), left({ _tag: 'KeyUsedForAnotherRequest' }));
  t.deepEqual(scenario([claimed('c1'), recorded], claim('c2', plus(CLAIM_LEASE_MS), { fingerprint: 'other' })), left({ _tag: 'KeyUsedForAnotherRequest' }));
});

test('given a recorded reply, when the same request claims, then AlreadyAnswered with the reply to replay; with its key gone, it claims', (t) => {
  const given = [claimed('c1'), recorded];
  t.deepEqual(scenario(given, claim('c2')), left({ _tag: 'AlreadyAnswered', answered: { status: 'done', claimId: 'c1', fingerprint: 'same', claimedAt: AT, expiresAt: EXPIRES, reply } }));
  t.deepEqual(scenario(given, claim('c2', AT, { replyGone: true })), right([claimed('c2')]));
});

test('given an expired generation, when any request claims, then a new generation, and the old one is superseded', (t) => {
  for (const given of [[claimed('c1')], [claimed('c1'), recorded]]) {
    t.deepEqual(scenario(given, claim('c2', EXPIRES, { fingerprint: 'other' })), right([claimed('c2', EXPIRES, 'other')]));
    t.is(supersededClaim(stateOf(given), EXPIRES), 'c1');
    t.is(supersededClaim(stateOf(given), AT), undefined);
  }
  t.is(supersededClaim(initialState, EXPIRES), undefined);
});

test('given our running claim, when its reply is recorded or the key released, then that event; given the claim taken over, then ClaimTakenOver', (t) => {
  const record: Command = { type: 'RecordReply', data: { claimId: 'c1', status: 201, reply } };
  const release: Command = { type: 'ReleaseKey', data: { claimId: 'c1', at: AT } };
  t.deepEqual(scenario([claimed('c1')], record), right([recorded]));
  t.deepEqual(scenario([claimed('c1')], release), right([released]));
  t.like(stateOf([claimed('c1'), recorded]), { status: 'done', claimId: 'c1' });
  t.deepEqual(stateOf([claimed('c1'), released]), { status: 'free', previousClaimId: 'c1' });
  for (const given of [[claimed('c1'), claimed('c2')], [claimed('c1'), recorded], []]) {
    t.deepEqual(scenario(given, record), left({ _tag: 'ClaimTakenOver', claimId: 'c1' }));
    t.deepEqual(scenario(given, release), left({ _tag: 'ClaimTakenOver', claimId: 'c1' }));
  }
});

test('given a generation, when its reply is shredded, then IdempotentReplyShredded and the key is free; given another generation or it shredded, then nothing', (t) => {
  const shred: Command = { type: 'ShredReply', data: { claimId: 'c1', at: EXPIRES } };
  t.deepEqual(scenario([claimed('c1'), recorded], shred), right([shredded]));
  t.deepEqual(scenario([claimed('c1')], shred), right([shredded]));
  t.deepEqual(stateOf([claimed('c1'), recorded, shredded]), { status: 'free', previousClaimId: 'c1' });
  t.deepEqual(scenario([claimed('c1'), recorded, shredded], shred), right([]));
  t.deepEqual(scenario([claimed('c1'), recorded, claimed('c2', EXPIRES)], shred), right([]));
});
