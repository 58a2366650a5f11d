// Callback delivery end to end: flow events appended to the store become signed POSTs to a
// receiver on loopback, retried, abandoned, and followed by the destruction of the flow's key.
import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { createTenant } from '../src/tenancy/commands.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { deliveryIdOf } from '../streams/delivery.js';
import { randomUUID } from 'node:crypto';
import { configureTenantCallback, sealSecret } from '../src/callbacks/tenantCallback.js';
import type { Json } from '../src/eventstore/port.js';
import { tenantStream } from '../streams/tenant.js';
import { resendDelivery } from '../src/callbacks/resend.js';
import { appendOffer, appendPresentationOutcome, presentationStatuses, type AppendedOutcome } from './support/callbackSources.js';
import { bootstrapDeliveryId, deliveryEvents, ended, eventuallyDelivery, withCallbackService } from './support/callbackService.js';
import { hasValidSignature, TEST_WEBHOOK_SECRET } from './support/receiver.js';

test('every status of both event kinds arrives once, with the exact body, a valid signature and a stable webhook-id', async (t) => {
  await withCallbackService(async (s, receiver) => {
    const { store, dataKeys } = s.service.context;
    const outcomes: AppendedOutcome[] = [];
    for (const status of presentationStatuses) outcomes.push(await appendPresentationOutcome(store, dataKeys, BOOTSTRAP_TENANT_ID, status));
    for (const outcome of ['ISSUED', 'FAILED', 'EXPIRED'] as const) outcomes.push(...(await appendOffer(store, BOOTSTRAP_TENANT_ID, outcome)));
    t.is(outcomes.length, 5 + 6);

    for (const outcome of outcomes) {
      const id = bootstrapDeliveryId(outcome.eventId, outcome.status);
      const state = await eventuallyDelivery(store, id, (d) => d.status === 'delivered' && (!d.callback.sealed || d.dataDestroyed));
      t.is(state.status, 'delivered', `${outcome.status} delivered`);
      const arrivals = receiver.received.filter((r) => r.headers['webhook-id'] === id);
      t.is(arrivals.length, 1, `${outcome.status} arrived once`);
      const arrival = arrivals[0]!;
      t.is(arrival.method, 'POST');
      t.is(arrival.headers['content-type'], 'application/json');
      t.deepEqual(JSON.parse(arrival.body), outcome.expectedBody, `${outcome.status} body`);
      t.true(hasValidSignature(TEST_WEBHOOK_SECRET, arrival), `${outcome.status} signature`);
      t.false(hasValidSignature('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', arrival), 'another secret does not verify');
    }
    t.is(receiver.received.length, outcomes.length, 'nothing else arrived');

    const fulfilled = outcomes[0]!;
    t.is(await dataKeys.find(fulfilled.eventId), undefined, 'the session key is destroyed after delivery');
    const events = await deliveryEvents(store, bootstrapDeliveryId(fulfilled.eventId, 'FULFILLED'));
    t.deepEqual(events.map((e) => e.type), ['DeliveryRecorded', 'DeliveryClaimed', 'DeliveryDelivered', 'DeliveryDataDestroyed']);
    t.false(JSON.stringify(events).includes('Erika'), 'no personal data in the delivery stream');
  });
});

test('a receiver that fails the first attempts then recovers gets the callback with the same webhook-id, delivered once', async (t) => {
  await withCallbackService(async (s, receiver) => {
    receiver.respond = (_request, count) =>
      count === 0 ? { status: 500 } : count === 1 ? { status: 503, headers: { 'retry-after': '0' } } : { status: 204 };
    const [created] = await appendOffer(s.service.context.store, BOOTSTRAP_TENANT_ID);
    const id = bootstrapDeliveryId(created!.eventId, 'OFFER_CREATED');
    const state = await eventuallyDelivery(s.service.context.store, id, ended);
    t.is(state.status, 'delivered');
    t.is(receiver.received.length, 3);
    t.true(receiver.received.every((r) => r.headers['webhook-id'] === id && r.body === receiver.received[0]!.body));
    t.true(receiver.received.every((r) => hasValidSignature(TEST_WEBHOOK_SECRET, r)));
    const events = await deliveryEvents(s.service.context.store, id);
    const outcomes = events.filter((e) => e.type === 'DeliveryAttemptFailed' || e.type === 'DeliveryDelivered');
    t.deepEqual(outcomes.map((e) => [e.type, e.data.attempt, e.data.httpStatus]), [
      ['DeliveryAttemptFailed', 1, 500],
      ['DeliveryAttemptFailed', 2, 503],
      ['DeliveryDelivered', 3, 204],
    ]);
    t.is(events.filter((e) => e.type === 'DeliveryRecorded').length, 1);
  });
});

test('a receiver that never recovers leads to an abandoned delivery, a destroyed key, and a refused re-send', async (t) => {
  await withCallbackService(async (s, receiver) => {
    receiver.respond = () => ({ status: 500 });
    const { store, dataKeys } = s.service.context;
    const fulfilled = await appendPresentationOutcome(store, dataKeys, BOOTSTRAP_TENANT_ID, 'FULFILLED');
    const id = bootstrapDeliveryId(fulfilled.eventId, 'FULFILLED');
    const state = await eventuallyDelivery(store, id, (d) => ended(d) && d.dataDestroyed);
    t.is(state.status, 'abandoned');
    t.is(receiver.received.length, 3, 'one request per step of the schedule');
    t.is(await dataKeys.find(fulfilled.eventId), undefined);
    const events = await deliveryEvents(store, id);
    t.like(events.find((e) => e.type === 'DeliveryAbandoned')?.data, { reason: 'retries_exhausted' });
    const last = events.filter((e) => e.type === 'DeliveryAttemptFailed').at(-1);
    t.is(last?.type === 'DeliveryAttemptFailed' ? last.data.nextAttemptAt : 'missing', null);
    const resent = await resendDelivery(store, dataKeys, id, { actor: 'test' });
    t.like(resent, { _tag: 'Left', left: { kind: 'domain', error: { _tag: 'DataGone' } } });
    t.is(receiver.received.length, 3);
  });
});

test('a tenant without a callback URL gets no attempt: undeliverable, and a re-send after configuring one delivers it', async (t) => {
  await withCallbackService(async (s, receiver) => {
    const { store, dataKeys, kek } = s.service.context;
    const tenant = await createTenant(store, { name: 'no-callbacks' }, { actor: 'test' });
    if (!isRight(tenant)) throw new Error('tenant not created');
    const tenantId = tenant.right.tenantId;
    const [created] = await appendOffer(store, tenantId);
    const id = deliveryIdOf(tenantId, created!.eventId, 'OFFER_CREATED');
    t.is((await eventuallyDelivery(store, id, ended)).status, 'undeliverable');
    t.is(receiver.received.length, 0);
    t.like(await resendDelivery(store, dataKeys, bootstrapDeliveryId('unknown', 'OFFER_CREATED'), { actor: 'test' }), { _tag: 'Left', left: { kind: 'domain', error: { _tag: 'DeliveryNotFound' } } });

    const configured = await configureTenantCallback(store, kek, { tenantId, url: receiver.url }, { actor: 'test' });
    if (!isRight(configured)) throw new Error('not configured');
    const secret = configured.right.generatedSecret!;
    t.regex(secret, /^whsec_/);
    t.true(isRight(await resendDelivery(store, dataKeys, id, { actor: 'test' })));
    t.is((await eventuallyDelivery(store, id, ended)).status, 'delivered');
    t.is(receiver.received.length, 1);
    t.is(receiver.received[0]!.headers['webhook-id'], id);
    t.true(hasValidSignature(secret, receiver.received[0]!));
    const delivered = await resendDelivery(store, dataKeys, id, { actor: 'test' });
    t.like(delivered, { _tag: 'Left', left: { kind: 'domain', error: { _tag: 'NotAbandoned', status: 'delivered' } } }, 'a delivered callback is not re-sent');
  });
});

test('a store from before tenant settings: a callback its tenant stream records is used while the settings set none, and the settings win once set', async (t) => {
  await withCallbackService(async (s, receiver) => {
    const { store, kek } = s.service.context;
    const tenant = await createTenant(store, { name: 'configured-before-settings' }, { actor: 'test' });
    if (!isRight(tenant)) throw new Error('tenant not created');
    const tenantId = tenant.right.tenantId;
    // What `ops callbacks set` recorded before settings existed.
    const legacy = await store.append(
      tenantStream(tenantId),
      [{ id: randomUUID(), type: 'TenantCallbackConfigured', data: { tenantId, url: `${receiver.url}/legacy`, secret: sealSecret(kek, tenantId, TEST_WEBHOOK_SECRET) as unknown as Json, configuredAt: new Date().toISOString() }, metadata: { actor: 'ops' } }],
      0,
    );
    t.true(isRight(legacy));
    /** Where the callback of a new offer of the tenant arrived, its signature checked. */
    const deliveredTo = async (): Promise<string> => {
      const [offered] = await appendOffer(store, tenantId);
      const id = deliveryIdOf(tenantId, offered!.eventId, 'OFFER_CREATED');
      t.is((await eventuallyDelivery(store, id, ended)).status, 'delivered');
      const arrived = receiver.received.find((r) => r.headers['webhook-id'] === id)!;
      t.true(hasValidSignature(TEST_WEBHOOK_SECRET, arrived));
      return arrived.path;
    };
    t.is(await deliveredTo(), '/callbacks/legacy');

    const configured = await configureTenantCallback(store, kek, { tenantId, url: `${receiver.url}/settings` }, { actor: 'test' });
    if (!isRight(configured) || !configured.right.position) throw new Error('not configured');
    await s.service.runner.waitFor(configured.right.position, 5000);
    t.is(configured.right.generatedSecret, undefined, 'the secret recorded before is kept');
    t.is(await deliveredTo(), '/callbacks/settings');
  });
});

test('redirects are not followed, a hanging receiver times out, a refused connection fails the attempt', async (t) => {
  await withCallbackService(async (s, receiver) => {
    const { store, kek } = s.service.context;
    receiver.respond = (request, count) => {
      const status = (JSON.parse(request.body) as { status: string }).status;
      if (status === 'ISSUED') return { status: 302, headers: { location: `${receiver.url}/elsewhere` } };
      if (status === 'FAILED') return count === 0 ? 'hang' : { status: 200 };
      return { status: 200 };
    };
    const [, issued] = await appendOffer(store, BOOTSTRAP_TENANT_ID, 'ISSUED');
    const [, failed] = await appendOffer(store, BOOTSTRAP_TENANT_ID, 'FAILED');
    const redirected = await eventuallyDelivery(store, bootstrapDeliveryId(issued!.eventId, 'ISSUED'), ended);
    t.is(redirected.status, 'abandoned');
    t.false(receiver.received.some((r) => r.path.endsWith('/elsewhere')), 'the redirect target was never called');
    const redirectFailures = (await deliveryEvents(store, bootstrapDeliveryId(issued!.eventId, 'ISSUED'))).filter((e) => e.type === 'DeliveryAttemptFailed');
    t.true(redirectFailures.length === 3 && redirectFailures.every((e) => e.data.httpStatus === 302 && e.data.detail === 'redirect not followed'));

    const timedOut = await eventuallyDelivery(store, bootstrapDeliveryId(failed!.eventId, 'FAILED'), ended);
    t.is(timedOut.status, 'delivered');
    const first = (await deliveryEvents(store, bootstrapDeliveryId(failed!.eventId, 'FAILED'))).find((e) => e.type === 'DeliveryAttemptFailed');
    t.like(first?.data, { attempt: 1, reason: 'timeout', httpStatus: null });

    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const tenant = await createTenant(store, { name: 'refused' }, { actor: 'test' });
    if (!isRight(tenant)) throw new Error('tenant not created');
    t.true(isRight(await configureTenantCallback(store, kek, { tenantId: tenant.right.tenantId, url: `http://127.0.0.1:${port}/cb` }, { actor: 'test' })));
    const [created] = await appendOffer(store, tenant.right.tenantId);
    const id = deliveryIdOf(tenant.right.tenantId, created!.eventId, 'OFFER_CREATED');
    t.is((await eventuallyDelivery(store, id, ended)).status, 'abandoned');
    const refused = (await deliveryEvents(store, id)).filter((e) => e.type === 'DeliveryAttemptFailed');
    t.true(refused.length === 3 && refused.every((e) => e.data.reason === 'network' && e.data.detail === 'ECONNREFUSED'), JSON.stringify(refused));
  });
});
