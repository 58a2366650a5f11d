// The rules behind delivery, each on its own: signatures, the retry schedule, Retry-After,
// configuration, and claims that lapse when their instance is gone.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { loadConfig } from '../src/config/config.js';
import { withoutUserInfo } from '../src/http/redact.js';
import { generateWebhookSecret, isCallbackUrl, isWebhookSecret, parseDuration, RetryScheduleFromString } from '../src/config/callbacks.js';
import { nextAttemptAt } from '../src/callbacks/schedule.js';
import { parseRetryAfter } from '../src/http/outboundAttempt.js';
import { signature } from '../src/callbacks/signature.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { deliveryStream } from '../streams/delivery.js';
import { bootstrapDeliveryId, deliveryEvents, ended, eventuallyDelivery, withCallbackService } from './support/callbackService.js';

test('signatures follow Standard Webhooks: the specification test vector', (t) => {
  // The vector published with the Standard Webhooks reference libraries.
  t.is(
    signature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  );
  t.true(isWebhookSecret(generateWebhookSecret()));
  t.false(isWebhookSecret('whsec_c2hvcnQ='), 'fewer than 24 bytes');
  t.false(isWebhookSecret('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), 'no prefix');
});

test('the retry schedule: durations, the attempt limit, jitter bounds and Retry-After', (t) => {
  t.deepEqual([parseDuration('0'), parseDuration('250ms'), parseDuration('5s'), parseDuration('5m'), parseDuration('2h'), parseDuration('7')], [0, 250, 5000, 300_000, 7_200_000, 7000]);
  t.is(parseDuration('5d'), undefined);
  t.is(parseDuration('-1s'), undefined);
  t.true(isLeft(RetryScheduleFromString.decode('0,,5s')));
  t.true(isLeft(RetryScheduleFromString.decode('')));
  const schedule = [0, 1000, 60_000];
  const now = new Date('2030-01-01T00:00:00.000Z');
  const low = () => 0;
  const high = () => 1;
  t.is(nextAttemptAt(schedule, 1, null, now, undefined, low)?.getTime(), now.getTime() + 900);
  t.is(nextAttemptAt(schedule, 2, null, now, undefined, high)?.getTime(), now.getTime() + 66_000);
  t.is(nextAttemptAt(schedule, 3, null, now, undefined), null, 'after the last step: abandoned');
  t.is(nextAttemptAt(schedule, 3, 4, now, undefined, low)?.getTime(), now.getTime() + 54_000, 'a re-send allows one more');
  t.is(nextAttemptAt(schedule, 4, 4, now, undefined), null);
  t.is(nextAttemptAt(schedule, 1, null, now, 30_000, low)?.getTime(), now.getTime() + 30_000, 'Retry-After asks for longer');
  t.is(nextAttemptAt(schedule, 2, null, now, 1000, low)?.getTime(), now.getTime() + 54_000, 'never sooner than the schedule');
  t.is(parseRetryAfter('120', now), 120_000);
  t.is(parseRetryAfter('Tue, 01 Jan 2030 00:02:00 GMT', now), 120_000);
  t.is(parseRetryAfter('soon', now), undefined);
  t.is(parseRetryAfter('999999999', now), 24 * 3_600_000, 'capped at a day');
});

test('configuration refuses callback URLs that are not http(s), malformed secrets and schedules', (t) => {
  for (const url of ['ftp://example.com/cb', 'http://user:pw@example.com/cb', 'https://example.com/cb#x', 'example.com/cb', 'javascript:alert(1)']) {
    t.false(isCallbackUrl(url), url);
  }
  t.true(isCallbackUrl('https://integrator.example/hooks?tenant=1'));
  const config = loadConfig({ CALLBACK_URL: 'file:///etc/passwd', CALLBACK_SECRET: 'whsec_toosecretivetoshow', CALLBACK_RETRY_SCHEDULE: '1,2x', CALLBACK_TIMEOUT_SECONDS: '0' });
  if (!isLeft(config)) return t.fail('accepted');
  t.is(config.left.length, 4);
  t.true(config.left.some((m) => m.startsWith('CALLBACK_URL:')));
  t.true(config.left.some((m) => m.startsWith('CALLBACK_SECRET:') && !m.includes('toosecretive')), 'a secret is never echoed');
  t.true(config.left.some((m) => m.startsWith('CALLBACK_RETRY_SCHEDULE:')));
  t.true(config.left.some((m) => m.startsWith('CALLBACK_TIMEOUT_SECONDS:')));
  const defaults = loadConfig({});
  t.true(isRight(defaults) && defaults.right.callbackRetrySchedule.length === 10 && defaults.right.callbackTimeoutSeconds === 15);
});

test('configuration errors never echo a URL\'s user-info: CALLBACK_URL, AUTHENTICATION_URL, PUBLIC_URL, DEFAULT_REDIRECT_URI', (t) => {
  const password = 'pa55-w0rd';
  const config = loadConfig({
    CALLBACK_URL: `https://alice:${password}@hooks.example/cb`,
    AUTHENTICATION_URL: `https://bob:${password}@login.example/`,
    PUBLIC_URL: `https://carol:${password}@connector.example#x`,
    DEFAULT_REDIRECT_URI: `https://dave:${password}@shop.example/done`,
  });
  if (!isLeft(config)) return t.fail('accepted');
  t.deepEqual(config.left, [
    'PUBLIC_URL: expected an absolute http(s) URL without credentials, query or fragment, got "https://[user-info removed]@connector.example#x"',
    'DEFAULT_REDIRECT_URI: expected an absolute https URL (http only on localhost) without credentials or fragment, got "https://[user-info removed]@shop.example/done"',
    'AUTHENTICATION_URL: expected an absolute http(s) URL without credentials or fragment, got "https://[user-info removed]@login.example/"',
    'CALLBACK_URL: expected an absolute http(s) URL without credentials or fragment, got "https://[user-info removed]@hooks.example/cb"',
  ]);
  for (const message of config.left) t.false(/pa55|alice|bob|carol|dave/.test(message), message);
});

test('withoutUserInfo: every URL of a text, the user-info up to the last @ of the authority, nothing else', (t) => {
  t.is(withoutUserInfo("argument 'https://u:p@h.example/a' is invalid; see http://x:y@z/"), "argument 'https://[user-info removed]@h.example/a' is invalid; see http://[user-info removed]@z/");
  t.is(withoutUserInfo('"https://a@b:c@host/"'), '"https://[user-info removed]@host/"');
  t.is(withoutUserInfo('https://host/path?mail=a@b.example'), 'https://host/path?mail=a@b.example');
  t.is(withoutUserInfo('expected an absolute URL, got "not a url"'), 'expected an absolute URL, got "not a url"');
});

test('a claim left by a crashed instance is respected until it lapses, then another instance delivers', async (t) => {
  await withCallbackService(async (s, receiver) => {
    const { store } = s.service.context;
    const eventId = randomUUID();
    const id = bootstrapDeliveryId(eventId, 'OFFER_CREATED');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + 1500).toISOString();
    const callback = { tenantId: BOOTSTRAP_TENANT_ID, eventId, status: 'OFFER_CREATED', body: { eventId, status: 'OFFER_CREATED', offerId: eventId } };
    const appended = await store.append(deliveryStream(id), [
      { id: randomUUID(), type: 'DeliveryRecorded', data: { deliveryId: id, source: { streamId: `offer-${eventId}`, revision: 0, eventId: randomUUID(), position: '0/0' }, callback, recordedAt: now.toISOString() } },
      { id: randomUUID(), type: 'DeliveryClaimed', data: { deliveryId: id, instanceId: 'crashed-instance', claimedAt: now.toISOString(), expiresAt } },
    ], 'no_stream');
    t.true(isRight(appended));
    t.is((await eventuallyDelivery(store, id, ended)).status, 'delivered');
    t.is(receiver.received.length, 1);
    const events = await deliveryEvents(store, id);
    const delivered = events.find((e) => e.type === 'DeliveryDelivered');
    t.true(delivered?.type === 'DeliveryDelivered' && delivered.data.attemptedAt >= expiresAt, 'not attempted before the claim lapsed');
    t.is(events.filter((e) => e.type === 'DeliveryClaimed').length, 2);
  });
});
