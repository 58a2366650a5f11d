// Callback delivery: latency from a terminal event appended to the callback received on loopback
// (p50, p99, events paced at 200/s) and deliveries per second with a receiver that answers at once.
// The reference is the least any subscriber must do, measured in the same run on its own store of
// the same kind: a bare `$all` subscription that translates each event to its callback, signs it
// and POSTs it, with no delivery record, claim or outcome. Ours also records, claims and records
// the outcome, each an fsync'd append (synchronous=FULL): the ratio is the price of exactly-once
// bookkeeping.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isLeft } from 'fp-ts/lib/Either.js';
import { callbackOf } from '../src/callbacks/callbackOf.js';
import { webhookHeaders } from '../src/callbacks/signature.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { START, type EventStore } from '../src/eventstore/port.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { appendOffer } from '../test/support/callbackSources.js';
import { startReceiver, TEST_WEBHOOK_SECRET } from '../test/support/receiver.js';
import { startTestService } from '../test/support/service.js';
import type { Figure } from './report.js';
import { percentile, perSecond } from './stats.js';

const RATE = 200;
/** Absolute target of the issue: p99 under 50 ms at 200 deliveries per second. */
const P99_TARGET_MS = 50;

type Source = () => Promise<string>;

/** Appends `count` events at `RATE` per second; returns ms from each append's return to its arrival. */
const pacedLatencies = async (append: Source, arrivals: Map<string, number>, count: number, waitFor: (n: number) => Promise<void>): Promise<number[]> => {
  const appended = new Map<string, number>();
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(append().then((id) => void appended.set(id, performance.now())));
  }
  await Promise.all(pending);
  await waitFor(count);
  return [...appended].map(([id, at]) => (arrivals.get(id) ?? Number.NaN) - at);
};

/** Appends `count` events, 16 at a time; returns deliveries per second until the last arrived. */
const throughput = async (append: Source, count: number, waitFor: (n: number) => Promise<void>): Promise<number> => {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < count) {
      next++;
      await append();
    }
  }));
  await waitFor(count);
  return perSecond(count, performance.now() - started);
};

/** The reference subscriber: sees each event, translates it, signs its callback body and POSTs it. */
const bareSubscriber = (store: EventStore, url: string) => {
  const subscription = store.subscribeToAll({ after: START, filter: { streamNamePrefixes: ['offer-'] } });
  const running = (async () => {
    for await (const message of subscription) {
      if (message.kind !== 'event') continue;
      const callback = callbackOf(message.event);
      if (isLeft(callback) || callback.right === undefined) continue;
      const body = JSON.stringify(callback.right.body);
      const headers = webhookHeaders(TEST_WEBHOOK_SECRET, message.event.id, Math.floor(Date.now() / 1000), body);
      void fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, redirect: 'manual' })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    }
  })();
  return { stop: async () => { await subscription.stop(); await running; } };
};

export const callbackFigures = async (options: {
  readonly dir: string;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly progress: (msg: string) => void;
}): Promise<Figure[]> => {
  const receiver = await startReceiver();
  const arrivals = new Map<string, number>();
  receiver.respond = (request) => {
    arrivals.set((JSON.parse(request.body) as { offerId: string }).offerId, performance.now());
    return { status: 200 };
  };
  const waitFor = (base: number) => async (n: number): Promise<void> => {
    // Bounded: a lost callback shows as a NaN latency, not a hang.
    for (let i = 0; i < 2000 && arrivals.size < base + n; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const dataDir = join(options.dir, 'callbacks');
  await mkdir(dataDir, { recursive: true });
  const service = await startTestService({ dataDir, env: { CALLBACK_URL: receiver.url, CALLBACK_SECRET: TEST_WEBHOOK_SECRET, LOG_LEVEL: 'error' } });
  const referenceStore = await openSqliteEventStore({ file: join(options.dir, 'callbacks-reference.sqlite'), synchronous: 'FULL' });
  const reference = bareSubscriber(referenceStore, receiver.url);
  const ours: Source = async () => (await appendOffer(service.service.context.store, BOOTSTRAP_TENANT_ID))[0]!.eventId;
  const bare: Source = async () => {
    const offerId = randomUUID();
    const callback = { tenantId: BOOTSTRAP_TENANT_ID, eventId: offerId, status: 'OFFER_CREATED', body: { eventId: offerId, status: 'OFFER_CREATED', offerId } };
    const appended = await referenceStore.append(`offer-${offerId}`, [{ id: randomUUID(), type: 'OfferCreated', data: { offerId, callback } }], 'no_stream');
    if (isLeft(appended)) throw new Error('reference append refused');
    return offerId;
  };
  const count = Math.max(100, Math.round(RATE * options.roundSeconds));
  const p50 = { ours: [] as number[], reference: [] as number[] };
  const p99 = { ours: [] as number[], reference: [] as number[] };
  const rates = { ours: [] as number[], reference: [] as number[] };
  try {
    options.progress(`callbacks: warm-up, then ${options.rounds} rounds of ${count} events at ${RATE}/s and ${count * 2} as fast as they go, a side`);
    await pacedLatencies(ours, arrivals, 50, waitFor(arrivals.size));
    await pacedLatencies(bare, arrivals, 50, waitFor(arrivals.size));
    for (let round = 0; round < options.rounds; round++) {
      const sides = round % 2 === 0 ? (['ours', 'reference'] as const) : (['reference', 'ours'] as const);
      for (const side of sides) {
        const source = side === 'ours' ? ours : bare;
        const latencies = await pacedLatencies(source, arrivals, count, waitFor(arrivals.size));
        p50[side].push(percentile(latencies, 50));
        p99[side].push(percentile(latencies, 99));
        rates[side].push(await throughput(source, count * 2, waitFor(arrivals.size)));
      }
    }
  } finally {
    await reference.stop();
    await referenceStore.close();
    await service.cleanup();
    await receiver.close();
  }
  const worstP99 = Math.max(...p99.ours);
  const absolute = `absolute: p99 ${worstP99.toFixed(1)} ms in the worst round, target < ${P99_TARGET_MS} ms at ${RATE}/s: ${worstP99 < P99_TARGET_MS ? 'ok' : 'MISSED'}`;
  const what = `ours: the service (embedded store, synchronous=FULL) records, claims, signs, POSTs and records the outcome; ` +
    `reference: a bare $all subscription on its own store that signs and POSTs; receiver on loopback answers 200 at once.`;
  return [
    { name: `callback latency p50 at ${RATE}/s`, unit: 'ms', ours: p50.ours, reference: p50.reference, target: { atMost: 5 }, note: `from the append's return to arrival. ${what}` },
    { name: `callback latency p99 at ${RATE}/s`, unit: 'ms', ours: p99.ours, reference: p99.reference, target: { atMost: 5 }, note: absolute },
    { name: 'callback deliveries/s', unit: 'deliveries/s', ours: rates.ours, reference: rates.reference, target: { atLeast: 0.2 }, note: `${count * 2} events appended 16 at a time, until the last arrived.` },
  ];
};
