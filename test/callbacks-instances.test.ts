// Several service instances over one event store: every callback is recorded once and delivered
// once, including retries that any instance may pick up. The instances share the EventStoreDB
// double, as production instances share an EventStoreDB cluster (and one key-encryption key).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { appendOffer, appendPresentationOutcome, type AppendedOutcome } from './support/callbackSources.js';
import { bootstrapDeliveryId, deliveryEvents, ended, eventuallyDelivery, quickCallbackEnv } from './support/callbackService.js';
import { hasValidSignature, startReceiver, TEST_WEBHOOK_SECRET } from './support/receiver.js';
import { startEventStoreDbDouble } from './support/esdb-double/index.js';
import { startTestService } from './support/service.js';

test('two service instances over one event store deliver each callback once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'callbacks-instances-'));
  const double = await startEventStoreDbDouble();
  const receiver = await startReceiver();
  // ISSUED and FULFILLED callbacks fail their first attempt, so their retries go through the
  // scans of both instances, which race to claim them.
  const failing = new Set(['ISSUED', 'FULFILLED']);
  const statusOf = (body: string): string => (JSON.parse(body) as { status: string }).status;
  receiver.respond = (request, count) => (count === 0 && failing.has(statusOf(request.body)) ? { status: 500 } : { status: 200 });
  const env = {
    ...quickCallbackEnv(receiver),
    EVENTSTORE_CONNECTION_STRING: double.connectionString,
    DATA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
  };
  await Promise.all(['one', 'two'].map((d) => mkdir(join(dir, d))));
  const [one, two] = await Promise.all([
    startTestService({ dataDir: join(dir, 'one'), env }),
    startTestService({ dataDir: join(dir, 'two'), env }),
  ]);
  try {
    const outcomes: AppendedOutcome[] = [];
    for (let i = 0; i < 8; i++) {
      const via = i % 2 === 0 ? one : two;
      outcomes.push(...(await appendOffer(via.service.context.store, BOOTSTRAP_TENANT_ID, 'ISSUED')));
      outcomes.push(await appendPresentationOutcome(via.service.context.store, via.service.context.dataKeys, BOOTSTRAP_TENANT_ID, 'FULFILLED'));
    }
    const ids = outcomes.map((o) => bootstrapDeliveryId(o.eventId, o.status));
    const failFirst = new Set(outcomes.filter((o) => failing.has(o.status)).map((o) => bootstrapDeliveryId(o.eventId, o.status)));

    const store = one.service.context.store;
    for (const id of ids) t.is((await eventuallyDelivery(store, id, (d) => ended(d) && (!d.callback.sealed || d.dataDestroyed))).status, 'delivered');
    const claimants = new Set<string>();
    for (const [i, id] of ids.entries()) {
      const arrivals = receiver.received.filter((r) => r.headers['webhook-id'] === id);
      t.is(arrivals.length, failFirst.has(id) ? 2 : 1, `delivery ${i}`);
      t.true(arrivals.every((r) => hasValidSignature(TEST_WEBHOOK_SECRET, r)));
      const events = await deliveryEvents(store, id);
      t.is(events.filter((e) => e.type === 'DeliveryRecorded').length, 1);
      t.is(events.filter((e) => e.type === 'DeliveryDelivered').length, 1);
      for (const e of events) if (e.type === 'DeliveryClaimed') claimants.add(e.data.instanceId);
    }
    t.is(receiver.received.length, ids.length + failFirst.size, 'nothing duplicated');
    t.log(`${claimants.size} instance(s) made claims`);
  } finally {
    await one.stop();
    await two.stop();
    await receiver.close();
    await double.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
