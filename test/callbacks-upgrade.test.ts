// An upgrade with callbacks pending: events the version before the translation recorded (their
// webhook request embedded as `data.callback`, the tenant and other facts only there) are
// delivered exactly as recorded, and the read models and the flows' deciders still read them.
import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { loadStream } from '../src/eventstore/handle.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { offer, offerStream } from '../streams/offer.js';
import { appendOffer, appendPresentationOutcome, presentationStatuses, type AppendedOutcome } from './support/callbackSources.js';
import { bootstrapDeliveryId, ended, eventuallyDelivery, withCallbackService } from './support/callbackService.js';
import { waitForOffer } from './support/wallet/issuanceChecks.js';

test('callbacks recorded before the upgrade are delivered once with their recorded bodies; the flows still read their events', async (t) => {
  await withCallbackService(async (s, receiver) => {
    const { store, dataKeys } = s.service.context;
    const embedded = { embedded: true };
    const outcomes: AppendedOutcome[] = [];
    for (const status of presentationStatuses) outcomes.push(await appendPresentationOutcome(store, dataKeys, BOOTSTRAP_TENANT_ID, status, embedded));
    for (const outcome of ['ISSUED', 'FAILED', 'EXPIRED'] as const) outcomes.push(...(await appendOffer(store, BOOTSTRAP_TENANT_ID, outcome, embedded)));

    // Keyed by webhook-id, which derives from the recorded request: it did not change either.
    const expected = Object.fromEntries(outcomes.map((o) => [bootstrapDeliveryId(o.eventId, o.status), o.expectedBody]));
    for (const id of Object.keys(expected)) {
      t.is((await eventuallyDelivery(store, id, (d) => ended(d) && (!d.callback.sealed || d.dataDestroyed))).status, 'delivered', id);
    }
    t.is(receiver.received.length, outcomes.length, 'each arrived once');
    t.deepEqual(Object.fromEntries(receiver.received.map((r) => [r.headers['webhook-id'], JSON.parse(r.body) as unknown])), expected);
    t.is(await dataKeys.find(outcomes[0]!.eventId), undefined, 'the FULFILLED session\'s key is destroyed after delivery');

    // The read models took every event (nothing quarantined), and the offers' decider folds them.
    await s.service.runner.waitFor(outcomes[outcomes.length - 1]!.position, 10_000);
    t.is(s.service.runner.status().quarantine.total, 0);
    for (const outcome of outcomes.slice(0, presentationStatuses.length)) {
      t.is(s.service.runner.db.get<{ status: string }>('SELECT status FROM presentations WHERE state = ?', [outcome.eventId])?.status, outcome.status);
    }
    for (const ended of outcomes.slice(presentationStatuses.length).filter((o) => o.status !== 'OFFER_CREATED')) {
      t.is((await waitForOffer(s, ended.eventId, (b) => b.status === ended.status)).status, ended.status);
      const folded = await loadStream(store, offer, offerStream(ended.eventId));
      t.true(isRight(folded) && folded.right.state.status === ended.status, `${ended.status} folds`);
    }
  });
});
