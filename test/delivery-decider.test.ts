// The callback delivery decider in given / when / then form: the events a delivery stream already
// holds, a command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import type { CallbackRequest } from '../streams/delivery.js';
import { decide, evolve, initialState, type AttemptOutcome, type Command, type DeliveryEvent } from '../streams/delivery.js';
import { givenWhen, stateAfter } from './support/decider.js';

const ID = 'delivery-1';
const T0 = '2026-05-01T10:00:00.000Z';
const T1 = '2026-05-01T10:01:00.000Z';
const T2 = '2026-05-01T10:02:00.000Z';
const LAPSED = '2026-05-01T10:05:00.000Z';
const sealed = { ownerId: 'offer-1', purpose: 'callback', value: { alg: 'A256GCM' as const, iv: 'iv', ciphertext: 'ct', tag: 'tag' } };
const callback: CallbackRequest = { tenantId: 'tenant-1', eventId: 'offer-1', status: 'issued', body: { status: 'issued' }, sealed };
const source = { streamId: 'offer-1', revision: 3, eventId: 'e-1', position: '7/7' };

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const record = (claim?: { instanceId: string; expiresAt: string }): Command => ({ type: 'RecordDelivery', data: { deliveryId: ID, source, callback, claim, at: T0 } });
const recorded: DeliveryEvent = { type: 'DeliveryRecorded', data: { deliveryId: ID, source, callback, recordedAt: T0 } };
const claimedBy = (instanceId: string, at = T0, expiresAt = LAPSED): DeliveryEvent => ({ type: 'DeliveryClaimed', data: { deliveryId: ID, instanceId, claimedAt: at, expiresAt } });
const claim = (instanceId: string, at: string): Command => ({ type: 'ClaimDelivery', data: { deliveryId: ID, claim: { instanceId, expiresAt: LAPSED }, at } });
const attempt = (instanceId: string, outcome: AttemptOutcome): Command => ({ type: 'RecordAttempt', data: { deliveryId: ID, instanceId, outcome, at: T1 } });
const failedWith = (nextAttemptAt: string | null) => ({ attempt: 1, attemptedAt: T1, reason: 'http_status' as const, httpStatus: 503, detail: '503', durationMs: 12, nextAttemptAt });
const failed = (nextAttemptAt: string | null): DeliveryEvent => ({ type: 'DeliveryAttemptFailed', data: { deliveryId: ID, ...failedWith(nextAttemptAt) } });
const delivered: DeliveryEvent = { type: 'DeliveryDelivered', data: { deliveryId: ID, attempt: 1, attemptedAt: T1, httpStatus: 204, durationMs: 12 } };
const abandoned = (reason: 'retries_exhausted' | 'no_callback_url' | 'data_gone'): DeliveryEvent => ({ type: 'DeliveryAbandoned', data: { deliveryId: ID, reason, abandonedAt: T1 } });
const resend = (dataExists = true): Command => ({ type: 'RequestResend', data: { deliveryId: ID, dataExists, at: T2 } });
const resent: DeliveryEvent = { type: 'DeliveryResendRequested', data: { deliveryId: ID, requestedAt: T2 } };
const destroy: Command = { type: 'DestroyData', data: { deliveryId: ID, at: T2 } };
const destroyed: DeliveryEvent = { type: 'DeliveryDataDestroyed', data: { deliveryId: ID, ownerId: 'offer-1', destroyedAt: T2 } };

test('given nothing, when a delivery is recorded, then DeliveryRecorded, claimed at once when a claim comes with it; given it, then DeliveryExists', (t) => {
  t.deepEqual(scenario([], record()), right([recorded]));
  t.deepEqual(scenario([], record({ instanceId: 'a', expiresAt: LAPSED })), right([recorded, claimedBy('a')]));
  t.deepEqual(scenario([recorded], record()), left({ _tag: 'DeliveryExists', deliveryId: ID }));
});

test('given a pending delivery, due and unclaimed (or its claim lapsed), when claimed, then DeliveryClaimed', (t) => {
  t.deepEqual(scenario([recorded], claim('a', T1)), right([claimedBy('a', T1)]));
  t.deepEqual(scenario([recorded, claimedBy('b')], claim('a', LAPSED)), right([claimedBy('a', LAPSED)]));
});

test('given a delivery claimed by another, not due, ended or unknown, when claimed, then refused', (t) => {
  t.deepEqual(scenario([recorded, claimedBy('b')], claim('a', T1)), left({ _tag: 'NotClaimable', deliveryId: ID }));
  t.deepEqual(scenario([recorded, claimedBy('a'), failed(T2)], claim('a', T1)), left({ _tag: 'NotClaimable', deliveryId: ID }));
  t.deepEqual(scenario([recorded, claimedBy('a'), delivered], claim('a', LAPSED)), left({ _tag: 'NotClaimable', deliveryId: ID }));
  t.deepEqual(scenario([], claim('a', T1)), left({ _tag: 'DeliveryNotFound', deliveryId: ID }));
});

test('given our claim, when the attempt is recorded, then delivered, a failure with a retry due, or failed and abandoned on the last', (t) => {
  const given = [recorded, claimedBy('a')];
  t.deepEqual(scenario(given, attempt('a', { kind: 'delivered', attempt: 1, attemptedAt: T1, httpStatus: 204, durationMs: 12 })), right([delivered]));
  t.deepEqual(scenario(given, attempt('a', { kind: 'failed', ...failedWith(T2) })), right([failed(T2)]));
  t.deepEqual(scenario(given, attempt('a', { kind: 'failed', ...failedWith(null) })), right([failed(null), abandoned('retries_exhausted')]));
  t.like(stateOf([...given, failed(T2)]), { status: 'pending', attempts: 1, nextAttemptAt: T2, claim: null });
  t.like(stateOf([...given, delivered]), { status: 'delivered' });
});

test('given our claim, when nothing could be attempted, then abandoned (no callback URL: undeliverable)', (t) => {
  const given = [recorded, claimedBy('a')];
  t.deepEqual(scenario(given, attempt('a', { kind: 'not_attempted', reason: 'no_callback_url' })), right([abandoned('no_callback_url')]));
  t.deepEqual(scenario(given, attempt('a', { kind: 'not_attempted', reason: 'data_gone' })), right([abandoned('data_gone')]));
  t.like(stateOf([...given, abandoned('no_callback_url')]), { status: 'undeliverable' });
  t.like(stateOf([...given, abandoned('data_gone')]), { status: 'abandoned' });
});

test('given the claim taken over, or the delivery ended, when our attempt is recorded, then ClaimLost', (t) => {
  const outcome = attempt('a', { kind: 'delivered', attempt: 1, attemptedAt: T1, httpStatus: 204, durationMs: 12 });
  t.deepEqual(scenario([recorded, claimedBy('a'), claimedBy('b', LAPSED)], outcome), left({ _tag: 'ClaimLost', deliveryId: ID }));
  t.deepEqual(scenario([recorded, claimedBy('a'), delivered], outcome), left({ _tag: 'ClaimLost', deliveryId: ID }));
  t.deepEqual(scenario([recorded], outcome), left({ _tag: 'ClaimLost', deliveryId: ID }));
});

test('given an abandoned or undeliverable delivery with its data, when re-sent, then one more attempt due at once', (t) => {
  const given = [recorded, claimedBy('a'), failed(null), abandoned('retries_exhausted')];
  t.deepEqual(scenario(given, resend()), right([resent]));
  t.deepEqual(scenario([recorded, claimedBy('a'), abandoned('no_callback_url')], resend())._tag, 'Right');
  t.like(stateOf([...given, resent]), {
    status: 'pending', attemptLimit: 2, nextAttemptAt: T2,
  });
});

test('given a delivery not abandoned, unknown, or whose data is gone, when re-sent, then refused', (t) => {
  t.deepEqual(scenario([recorded], resend()), left({ _tag: 'NotAbandoned', deliveryId: ID, status: 'pending' }));
  t.deepEqual(scenario([recorded, claimedBy('a'), delivered], resend()), left({ _tag: 'NotAbandoned', deliveryId: ID, status: 'delivered' }));
  t.deepEqual(scenario([], resend()), left({ _tag: 'DeliveryNotFound', deliveryId: ID }));
  const ended = [recorded, claimedBy('a'), abandoned('data_gone')];
  t.deepEqual(scenario(ended, resend(false)), left({ _tag: 'DataGone', deliveryId: ID }));
  t.deepEqual(scenario([...ended, destroyed], resend()), left({ _tag: 'DataGone', deliveryId: ID }));
});

test('given an ended delivery with sealed data, when its data is destroyed, then DeliveryDataDestroyed once; pending or unsealed, nothing', (t) => {
  const ended = [recorded, claimedBy('a'), delivered];
  t.deepEqual(scenario(ended, destroy), right([destroyed]));
  t.deepEqual(scenario([...ended, destroyed], destroy), right([]));
  t.deepEqual(scenario([recorded], destroy), right([]));
  const { sealed: _, ...unsealed } = callback;
  t.deepEqual(scenario([{ type: 'DeliveryRecorded', data: { deliveryId: ID, source, callback: unsealed, recordedAt: T0 } }, claimedBy('a'), delivered], destroy), right([]));
  t.deepEqual(scenario([], destroy), left({ _tag: 'DeliveryNotFound', deliveryId: ID }));
});
