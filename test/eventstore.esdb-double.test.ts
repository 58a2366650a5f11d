// The EventStoreDB adapter over the gRPC double: the shared contract, then what only this adapter
// has to get right (the client's quirks, and how the wire protocol behaves under it).
import test, { type ExecutionContext } from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { isRight } from 'fp-ts/lib/Either.js';
import {
  BACKWARDS,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  StreamDeletedError,
  WrongExpectedVersionError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { openEventStoreDb } from '../src/eventstore/esdb.js';
import { START, type EventData, type EventStore, type SubscriptionMessage } from '../src/eventstore/port.js';
import { eventStoreContract } from './eventstore.contract.js';
import { startEventStoreDbDouble } from './support/esdb-double/index.js';

eventStoreContract('EventStoreDB adapter over the gRPC double', async () => {
  const double = await startEventStoreDbDouble();
  const store = openEventStoreDb(double.connectionString);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await double.stop();
    },
  };
});

const unique = (): string => `esdb${randomBytes(6).toString('hex')}`;
const event = (type: string, n = 0, metadata?: EventData['metadata']): EventData =>
  metadata === undefined ? { id: randomUUID(), type, data: { n } } : { id: randomUUID(), type, data: { n }, metadata };

const withDouble = (title: string, body: (store: EventStore, t: ExecutionContext) => Promise<void>) =>
  test(`EventStoreDB adapter over the gRPC double: ${title}`, async (t) => {
    const double = await startEventStoreDbDouble();
    const store = openEventStoreDb(double.connectionString);
    try {
      await body(store, t);
    } finally {
      await store.close();
      await double.stop();
    }
  });

const next = async (iterator: AsyncIterator<SubscriptionMessage>): Promise<SubscriptionMessage> => {
  const result = await iterator.next();
  if (result.done) throw new Error('subscription ended early');
  return result.value;
};

const untilCaughtUp = async (iterator: AsyncIterator<SubscriptionMessage>): Promise<SubscriptionMessage[]> => {
  const received: SubscriptionMessage[] = [];
  for (let i = 0; i < 10_000; i++) {
    const message = await next(iterator);
    received.push(message);
    if (message.kind === 'caughtUp') return received;
  }
  throw new Error('never caught up');
};

withDouble('metadata that is falsy JSON, and absent metadata, read back as written', async (store, t) => {
  const stream = `${unique()}-1`;
  t.true(isRight(await store.append(stream, [event('A', 0, false), event('B', 1, 0), event('C', 2)], 'no_stream')));
  const read = await store.readStream(stream);
  if (read._tag !== 'Found') throw new Error(read._tag);
  t.deepEqual(read.events.map((e) => e.metadata), [false, 0, null]);
});

withDouble('$all counts only user events, reads past system ones, and closes after partial reads', async (store, t) => {
  const prefix = unique();
  t.true(isRight(await store.append(`${prefix}-a`, [event('A')], 'no_stream')));
  t.true(isRight(await store.tombstone(`${prefix}-gone`, 'any')));
  t.true(isRight(await store.append(`${prefix}-b`, [event('B')], 'no_stream')));
  t.true(isRight(await store.tombstone(`${prefix}-gone-too`, 'any')));
  const types = (events: readonly { type: string }[]) => events.map((e) => e.type);
  // Each read meets a system event ($epoch-information, $streamDeleted) where the port counts none.
  t.deepEqual(types(await store.readAll({ maxCount: 1 })), ['A']);
  t.deepEqual(types(await store.readAll({ maxCount: 2 })), ['A', 'B']);
  t.deepEqual(types(await store.readAll({ direction: 'backwards', maxCount: 2 })), ['B', 'A']);
  // The store is closed after this body; the client waits there for every read to be finished.
});

test('EventStoreDB adapter over the gRPC double: a subscription throws when the connection fails', async (t) => {
  const double = await startEventStoreDbDouble();
  const store = openEventStoreDb(double.connectionString);
  try {
    const subscription = store.subscribeToAll({ after: START });
    const iterator = subscription[Symbol.asyncIterator]();
    await untilCaughtUp(iterator);
    await double.stop();
    await t.throwsAsync(iterator.next());
  } finally {
    await store.close();
  }
});

withDouble('a subscriber that falls behind gets every event once and hears caughtUp once', async (store, t) => {
  const prefix = unique();
  const subscription = store.subscribeToAll({ after: START, filter: { streamNamePrefixes: [`${prefix}-`] } });
  const iterator = subscription[Symbol.asyncIterator]();
  await untilCaughtUp(iterator);
  // More than the server's live buffer in one write: it reports fell_behind, catches up, and says
  // caught_up again, which the port must not repeat.
  const burst = Array.from({ length: 100 }, (_, n) => event('Burst', n));
  t.true(isRight(await store.append(`${prefix}-1`, burst, 'no_stream')));
  t.true(isRight(await store.append(`${prefix}-1`, [event('After', 100)], 99)));
  const received: SubscriptionMessage[] = [];
  while (received.length < 101) received.push(await next(iterator));
  await subscription.stop();
  t.deepEqual(
    received.map((m) => (m.kind === 'event' ? (m.event.data as { n: number }).n : 'caughtUp')),
    [...Array(101).keys()],
  );
});

// The double itself, through the official client: the behaviour the adapter relies on or works
// around must be the server's, or the contract above proves nothing. An unpatched client appends
// with BatchAppend, whose state db-client shares across clients (see esdb.ts), so these run alone.
const withRawClient = (title: string, body: (client: EventStoreDBClient, t: ExecutionContext) => Promise<void>) =>
  test.serial(`EventStoreDB gRPC double: ${title}`, async (t) => {
    const double = await startEventStoreDbDouble();
    const client = EventStoreDBClient.connectionString(double.connectionString);
    try {
      await body(client, t);
    } finally {
      await client.dispose();
      await double.stop();
    }
  });

const rawEvent = (type: string) => jsonEvent({ id: randomUUID(), type, data: {} });

const typesOf = async (read: AsyncIterable<AllStreamResolvedEvent>): Promise<string[]> => {
  const types: string[] = [];
  for await (const resolved of read) if (resolved.event) types.push(resolved.event.type);
  return types;
};

/** Reads to the end: the client's dispose() waits forever for a read that was left early. */
const positionOf = async (read: AsyncIterable<ResolvedEvent>): Promise<Position> => {
  const positions: Position[] = [];
  for await (const resolved of read) if (resolved.event?.position) positions.push(resolved.event.position);
  if (!positions[0]) throw new Error('no event');
  return positions[0];
};

withRawClient('$all is read forwards from a position inclusively, backwards exclusively', async (client, t) => {
  const stream = `${unique()}-1`;
  await client.appendToStream(stream, ['E1', 'E2', 'E3'].map(rawEvent));
  t.is((await typesOf(client.readAll({ direction: FORWARDS })))[0], '$epoch-information', 'a fresh node has system events');
  const second = await positionOf(client.readStream(stream, { fromRevision: 1n, maxCount: 1 }));
  t.deepEqual(await typesOf(client.readAll({ direction: FORWARDS, fromPosition: second })), ['E2', 'E3']);
  t.deepEqual(await typesOf(client.readAll({ direction: BACKWARDS, fromPosition: second })), ['E1', '$epoch-information']);
});

withRawClient('BatchAppend reports a wrong expected revision and a deleted stream as the server does', async (client, t) => {
  const stream = `${unique()}-1`;
  const written = await client.appendToStream(stream, [rawEvent('A'), rawEvent('B')], { expectedRevision: NO_STREAM });
  t.is(written.nextExpectedRevision, 1n);
  const wrong = await t.throwsAsync(client.appendToStream(stream, rawEvent('C'), { expectedRevision: NO_STREAM }), {
    instanceOf: WrongExpectedVersionError,
  });
  t.deepEqual([wrong?.expectedVersion, wrong?.actualVersion], ['no_stream', 1n]);
  await client.tombstoneStream(stream);
  await t.throwsAsync(client.appendToStream(stream, rawEvent('D')), { instanceOf: StreamDeletedError });
});
