// The event store contract: EventStoreDB's semantics as our code relies on them. Every adapter
// runs this suite; it, not any adapter or the gRPC double, defines what correct means.
// Stream names and event types are unique per test so the suite can share one real server.
import test, { type ExecutionContext } from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import * as io from 'io-ts';
import { isLeft, isRight, left, right } from 'fp-ts/lib/Either.js';
import { eventCodec, type Decider } from '../streams/event.js';
import { handleCommand, loadStream, type Loaded } from '../src/eventstore/handle.js';
import {
  START,
  comparePositions,
  type EventData,
  type EventStore,
  type RecordedEvent,
  type Subscription,
  type SubscriptionMessage,
} from '../src/eventstore/port.js';
import { leftOf, rightOf } from './support/either.js';

export interface OpenedStore {
  readonly store: EventStore;
  readonly cleanup: () => Promise<void>;
}

const unique = (): string => `contract${randomBytes(6).toString('hex')}`;

const event = (type: string, n = 0): EventData => ({ id: randomUUID(), type, data: { n }, metadata: { by: 'contract' } });

const found = async (store: EventStore, stream: string, options?: Parameters<EventStore['readStream']>[1]) => {
  const result = await store.readStream(stream, options);
  if (result._tag !== 'Found') throw new Error(`expected ${stream} to exist, got ${result._tag}`);
  return result.events;
};

/** Pulls messages from a subscription until `until` says stop, with a bound on how many. */
const take = async (
  subscription: Subscription,
  until: (received: readonly SubscriptionMessage[]) => boolean,
): Promise<SubscriptionMessage[]> => {
  const received: SubscriptionMessage[] = [];
  for await (const message of subscription) {
    received.push(message);
    if (until(received) || received.length > 10_000) break;
  }
  return received;
};

const eventsOf = (messages: readonly SubscriptionMessage[]): RecordedEvent[] =>
  messages.flatMap((m) => (m.kind === 'event' ? [m.event] : []));

/** A counter as the smallest decider: `Add` records what it adds, and adding 0 records nothing. */
const Added = eventCodec('Added', io.type({ n: io.number }));
type Added = io.TypeOf<typeof Added>;
const counter: Decider<{ readonly add: number }, number, Added, never> = {
  category: 'counter',
  codec: Added,
  initialState: 0,
  evolve: (total, e) => total + e.data.n,
  decide: (command) => right(command.add === 0 ? [] : [{ type: 'Added', data: { n: command.add } }]),
};

/** The store, with the acknowledgement of its next append lost: the append happens, the caller hears an error. */
const losingNextAcknowledgement = (store: EventStore): EventStore => {
  let lose = true;
  return {
    ...store,
    append: async (...args) => {
      const result = await store.append(...args);
      if (lose) {
        lose = false;
        throw new Error('connection lost before the acknowledgement');
      }
      return result;
    },
  };
};

export function eventStoreContract(name: string, open: () => Promise<OpenedStore>): void {
  const withStore = (title: string, body: (store: EventStore, t: ExecutionContext) => Promise<void>) =>
    test(`${name}: ${title}`, async (t) => {
      const { store, cleanup } = await open();
      try {
        await body(store, t);
      } finally {
        await cleanup();
      }
    });

  withStore('a new stream starts at revision 0 and records what was appended', async (store, t) => {
    const stream = `${unique()}-1`;
    const first = event('Opened', 1);
    const result = rightOf(await store.append(stream, [first, event('Changed', 2)], 'no_stream'));
    t.is(result.nextExpectedRevision, 1);
    t.true(comparePositions(result.position, START) > 0);
    const events = await found(store, stream);
    t.deepEqual(events.map((e) => [e.revision, e.type, e.data]), [[0, 'Opened', { n: 1 }], [1, 'Changed', { n: 2 }]]);
    t.is(events[0]!.id, first.id);
    t.is(events[0]!.streamId, stream);
    t.deepEqual(events[0]!.metadata, { by: 'contract' });
    t.true(events[0]!.created instanceof Date && !Number.isNaN(events[0]!.created.getTime()));
    t.true(comparePositions(events[0]!.position, events[1]!.position) < 0);
    t.is(comparePositions(events[1]!.position, result.position), 0);
  });

  withStore('an exact expected revision appends only when it is the current one', async (store, t) => {
    const stream = `${unique()}-1`;
    rightOf(await store.append(stream, [event('A')], 'no_stream'));
    t.is(rightOf(await store.append(stream, [event('B')], 0)).nextExpectedRevision, 1);
    const error = leftOf(await store.append(stream, [event('C')], 0));
    t.deepEqual(error, { _tag: 'WrongExpectedRevision', streamId: stream, expected: 0, actual: 1 });
    t.is((await found(store, stream)).length, 2);
  });

  withStore('no_stream and stream_exists report the actual revision when wrong', async (store, t) => {
    const stream = `${unique()}-1`;
    const missing = leftOf(await store.append(stream, [event('A')], 'stream_exists'));
    t.deepEqual(missing, { _tag: 'WrongExpectedRevision', streamId: stream, expected: 'stream_exists', actual: 'no_stream' });
    const exact = leftOf(await store.append(stream, [event('A')], 5));
    t.deepEqual(exact, { _tag: 'WrongExpectedRevision', streamId: stream, expected: 5, actual: 'no_stream' });
    rightOf(await store.append(stream, [event('A'), event('B')], 'no_stream'));
    const existing = leftOf(await store.append(stream, [event('C')], 'no_stream'));
    t.deepEqual(existing, { _tag: 'WrongExpectedRevision', streamId: stream, expected: 'no_stream', actual: 1 });
    t.is(rightOf(await store.append(stream, [event('C')], 'stream_exists')).nextExpectedRevision, 2);
    t.is(rightOf(await store.append(stream, [event('D')], 'any')).nextExpectedRevision, 3);
  });

  withStore('appending the same event ids again at the same expected revision writes nothing', async (store, t) => {
    const stream = `${unique()}-1`;
    const batch = [event('A'), event('B')];
    const first = rightOf(await store.append(stream, batch, 'no_stream'));
    const retry = rightOf(await store.append(stream, batch, 'no_stream'));
    t.is(retry.nextExpectedRevision, first.nextExpectedRevision);
    t.is(comparePositions(retry.position, first.position), 0);
    const next = [event('C')];
    rightOf(await store.append(stream, next, 1));
    rightOf(await store.append(stream, next, 1));
    t.deepEqual((await found(store, stream)).map((e) => e.type), ['A', 'B', 'C']);
  });

  withStore('a retry with expected revision any is recognised by its event ids', async (store, t) => {
    const stream = `${unique()}-1`;
    const batch = [event('A')];
    rightOf(await store.append(stream, batch, 'any'));
    rightOf(await store.append(stream, [event('B')], 'any'));
    rightOf(await store.append(stream, batch, 'any'));
    t.deepEqual((await found(store, stream)).map((e) => e.type), ['A', 'B']);
  });

  withStore('a batch that only partly matches what is stored is a conflict, not a retry', async (store, t) => {
    const stream = `${unique()}-1`;
    const a = event('A');
    rightOf(await store.append(stream, [a, event('B')], 'no_stream'));
    const error = leftOf(await store.append(stream, [a, event('X')], 'no_stream'));
    t.is(error._tag, 'WrongExpectedRevision');
    t.is((await found(store, stream)).length, 2);
  });

  withStore('a stream reads forwards and backwards, from a revision, with a count', async (store, t) => {
    const stream = `${unique()}-1`;
    rightOf(await store.append(stream, [0, 1, 2, 3, 4].map((n) => event('E', n)), 'no_stream'));
    const revisions = (events: readonly RecordedEvent[]) => events.map((e) => e.revision);
    t.deepEqual(revisions(await found(store, stream)), [0, 1, 2, 3, 4]);
    t.deepEqual(revisions(await found(store, stream, { fromRevision: 2, maxCount: 2 })), [2, 3]);
    t.deepEqual(revisions(await found(store, stream, { direction: 'backwards' })), [4, 3, 2, 1, 0]);
    t.deepEqual(revisions(await found(store, stream, { direction: 'backwards', fromRevision: 3, maxCount: 2 })), [3, 2]);
    t.deepEqual(revisions(await found(store, stream, { direction: 'backwards', maxCount: 1 })), [4]);
    t.deepEqual(revisions(await found(store, stream, { fromRevision: 9 })), []);
  });

  withStore('a missing stream is a typed result, not an exception', async (store, t) => {
    const stream = `${unique()}-1`;
    t.deepEqual(await store.readStream(stream), { _tag: 'StreamNotFound', streamId: stream });
    t.deepEqual(await store.readStream(stream, { direction: 'backwards' }), { _tag: 'StreamNotFound', streamId: stream });
  });

  withStore('$all reads forwards and backwards from an inclusive position', async (store, t) => {
    const prefix = unique();
    const first = rightOf(await store.append(`${prefix}-a`, [event('One')], 'no_stream'));
    rightOf(await store.append(`${prefix}-b`, [event('Two')], 'no_stream'));
    const last = rightOf(await store.append(`${prefix}-a`, [event('Three')], 0));
    const ours = (events: readonly RecordedEvent[]) => events.filter((e) => e.streamId.startsWith(prefix)).map((e) => e.type);
    t.deepEqual(ours(await store.readAll({ fromPosition: first.position, maxCount: 1000 })), ['One', 'Two', 'Three']);
    const backwards = await store.readAll({ direction: 'backwards', fromPosition: last.position, maxCount: 1000 });
    t.deepEqual(ours(backwards).slice(0, 3), ['Three', 'Two', 'One']);
    for (let i = 1; i < backwards.length; i++) t.true(comparePositions(backwards[i - 1]!.position, backwards[i]!.position) > 0);
    const head = await store.readAll({ direction: 'backwards', maxCount: 1 });
    t.is(head.length, 1);
    t.true(comparePositions(head[0]!.position, last.position) >= 0);
    t.true((await store.readAll({ maxCount: 1000 })).every((e) => !e.type.startsWith('$')));
  });

  withStore('a subscription delivers history, says it caught up, then delivers live events', async (store, t) => {
    const prefix = unique();
    const start = rightOf(await store.append(`${prefix}-1`, [event('H1')], 'no_stream'));
    rightOf(await store.append(`${prefix}-2`, [event('H2')], 'no_stream'));
    rightOf(await store.append(`other${prefix}-1`, [event('Elsewhere')], 'no_stream'));
    const subscription = store.subscribeToAll({ after: START, filter: { streamNamePrefixes: [`${prefix}-`] } });
    const iterator = subscription[Symbol.asyncIterator]();
    const history: SubscriptionMessage[] = [];
    for (;;) {
      const next = await iterator.next();
      if (next.done) throw new Error('subscription ended early');
      history.push(next.value);
      if (next.value.kind === 'caughtUp') break;
    }
    t.deepEqual(eventsOf(history).map((e) => e.type), ['H1', 'H2']);
    t.is(comparePositions(eventsOf(history)[0]!.position, start.position), 0);
    rightOf(await store.append(`${prefix}-1`, [event('L1')], 0));
    rightOf(await store.append(`other${prefix}-1`, [event('Elsewhere')], 0));
    rightOf(await store.append(`${prefix}-3`, [event('L2')], 'no_stream'));
    const live: RecordedEvent[] = [];
    while (live.length < 2) {
      const next = await iterator.next();
      if (next.done) throw new Error('subscription ended early');
      if (next.value.kind === 'event') live.push(next.value.event);
      else t.fail('caughtUp came twice');
    }
    t.deepEqual(live.map((e) => [e.streamId, e.type]), [[`${prefix}-1`, 'L1'], [`${prefix}-3`, 'L2']]);
    await subscription.stop();
    t.true((await iterator.next()).done);
  });

  withStore('a subscription filters by event type prefix', async (store, t) => {
    const prefix = unique();
    const type = `Typed${prefix}`;
    rightOf(await store.append(`${prefix}-1`, [event(`${type}Kept`), event('Dropped'), event(`${type}AlsoKept`)], 'no_stream'));
    const subscription = store.subscribeToAll({ after: START, filter: { eventTypePrefixes: [type] } });
    const received = await take(subscription, (r) => r.some((m) => m.kind === 'caughtUp'));
    await subscription.stop();
    t.deepEqual(eventsOf(received).map((e) => e.type), [`${type}Kept`, `${type}AlsoKept`]);
  });

  withStore('a subscription resumed from a checkpoint has no gaps and no repeats', async (store, t) => {
    const prefix = unique();
    const filter = { streamNamePrefixes: [`${prefix}-`] };
    for (let i = 0; i < 10; i++) rightOf(await store.append(`${prefix}-${i % 3}`, [event('E', i)], 'any'));
    const first = store.subscribeToAll({ after: START, filter });
    const part = eventsOf(await take(first, (r) => eventsOf(r).length === 4));
    await first.stop();
    const checkpoint = part[part.length - 1]!.position;
    for (let i = 10; i < 15; i++) rightOf(await store.append(`${prefix}-${i % 3}`, [event('E', i)], 'any'));
    const resumed = store.subscribeToAll({ after: checkpoint, filter });
    const rest = eventsOf(await take(resumed, (r) => eventsOf(r).length === 11));
    await resumed.stop();
    t.deepEqual([...part, ...rest].map((e) => (e.data as { n: number }).n), [...Array(15).keys()]);
  });

  withStore('a tombstoned stream can never be written or read again', async (store, t) => {
    const stream = `${unique()}-1`;
    rightOf(await store.append(stream, [event('A')], 'no_stream'));
    t.deepEqual(leftOf(await store.tombstone(stream, 5)), {
      _tag: 'WrongExpectedRevision',
      streamId: stream,
      expected: 5,
      actual: 0,
    });
    rightOf(await store.tombstone(stream, 0));
    t.deepEqual(leftOf(await store.append(stream, [event('B')], 'any')), { _tag: 'StreamDeleted', streamId: stream });
    t.deepEqual(leftOf(await store.append(stream, [event('B')], 'no_stream')), { _tag: 'StreamDeleted', streamId: stream });
    t.deepEqual(await store.readStream(stream), { _tag: 'StreamDeleted', streamId: stream });
    t.deepEqual(leftOf(await store.tombstone(stream, 'any')), { _tag: 'StreamDeleted', streamId: stream });
  });

  withStore('concurrent appends at one expected revision have exactly one winner each round', async (store, t) => {
    const stream = `${unique()}-1`;
    let expected: number | 'no_stream' = 'no_stream';
    for (let round = 0; round < 10; round++) {
      const attempts = await Promise.all(
        Array.from({ length: 8 }, (_, w) => store.append(stream, [event('Race', round * 8 + w)], expected)),
      );
      const winners = attempts.filter(isRight);
      t.is(winners.length, 1, `round ${round}`);
      for (const loser of attempts.filter(isLeft)) t.deepEqual(loser.left, { _tag: 'WrongExpectedRevision', streamId: stream, expected, actual: round });
      expected = round;
    }
    t.deepEqual((await found(store, stream)).map((e) => e.revision), [...Array(10).keys()]);
  });

  withStore('optimistic writers that retry on conflict lose nothing and leave no gaps', async (store, t) => {
    const stream = `${unique()}-1`;
    const writers = 6;
    const perWriter = 8;
    const written: string[] = [];
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < perWriter; i++) {
        const e = event('W', w * 100 + i);
        for (let attempt = 0; attempt < 1000; attempt++) {
          const read = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
          const expected = read._tag === 'Found' ? read.events[0]!.revision : 'no_stream';
          const result = await store.append(stream, [e], expected);
          if (isRight(result)) {
            written.push(e.id);
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
    const events = await found(store, stream);
    t.deepEqual(events.map((e) => e.revision), [...Array(writers * perWriter).keys()]);
    t.deepEqual(new Set(events.map((e) => e.id)), new Set(written));
    t.is(written.length, writers * perWriter);
  });

  withStore('a command run again after its acknowledgement was lost appends nothing twice', async (store, t) => {
    const stream = `${unique()}-1`;
    rightOf(await handleCommand(store, counter, stream, { add: 1 }, { commandId: 'first', metadata: { actor: 'contract' } }));
    const loaded = rightOf(await loadStream(store, counter, stream));
    const command = { commandId: randomUUID(), metadata: { actor: 'contract' }, loaded };
    const flaky = losingNextAcknowledgement(store);
    await t.throwsAsync(handleCommand(flaky, counter, stream, { add: 2 }, command));
    const again = rightOf(await handleCommand(flaky, counter, stream, { add: 2 }, command));
    t.is(again.revision, 1);
    t.deepEqual((await found(store, stream)).map((e) => e.data), [{ n: 1 }, { n: 2 }]);
    t.is(rightOf(await loadStream(store, counter, stream)).state, 3);
  });

  withStore('a command allowed to retry decides again after a lost race; one that is not reports it', async (store, t) => {
    const stream = `${unique()}-1`;
    const metadata = { actor: 'contract' };
    rightOf(await handleCommand(store, counter, stream, { add: 1 }, { commandId: randomUUID(), metadata }));
    const stale = rightOf(await loadStream(store, counter, stream));
    rightOf(await handleCommand(store, counter, stream, { add: 10 }, { commandId: randomUUID(), metadata }));
    const refused = leftOf(await handleCommand(store, counter, stream, { add: 100 }, { commandId: randomUUID(), metadata, loaded: stale }));
    t.like(refused, { kind: 'store', error: { _tag: 'WrongExpectedRevision', expected: 0, actual: 1 } });
    const retried = rightOf(await handleCommand(store, counter, stream, { add: 100 }, { commandId: randomUUID(), metadata, loaded: stale, retries: 1 }));
    t.is(retried.revision, 2);
    t.is(retried.state, 111);
  });

  withStore('a command that decides nothing reports the revision its state was read at, never NaN', async (store, t) => {
    const stream = `${unique()}-1`;
    const metadata = { actor: 'contract' };
    t.is(rightOf(await handleCommand(store, counter, stream, { add: 0 }, { commandId: randomUUID(), metadata })).revision, -1);
    rightOf(await handleCommand(store, counter, stream, { add: 1 }, { commandId: randomUUID(), metadata }));
    rightOf(await handleCommand(store, counter, stream, { add: 1 }, { commandId: randomUUID(), metadata }));
    t.is(rightOf(await handleCommand(store, counter, stream, { add: 0 }, { commandId: randomUUID(), metadata })).revision, 1);
    // A loaded state is of one revision: `any` (which made the revision NaN) is refused by type.
    // @ts-expect-error `any` is an expectation, not a revision a state was read at
    const unread: Loaded<number> = { state: 0, expectedRevision: 'any' };
    t.is(unread.state, 0);
  });

  withStore('I/O before the append runs after the decision; its refusal appends nothing, and a decision of nothing runs none', async (store, t) => {
    const stream = `${unique()}-1`;
    const metadata = { actor: 'contract' };
    const seen: number[][] = [];
    const refusing = async (events: readonly Added[]) => {
      seen.push(events.map((e) => e.data.n));
      return left({ _tag: 'Refused' as const });
    };
    t.deepEqual(leftOf(await handleCommand(store, counter, stream, { add: 5 }, { commandId: randomUUID(), metadata, beforeAppend: refusing })), { kind: 'hook', error: { _tag: 'Refused' } });
    t.is((await store.readStream(stream))._tag, 'StreamNotFound');
    rightOf(await handleCommand(store, counter, stream, { add: 0 }, { commandId: randomUUID(), metadata, beforeAppend: refusing }));
    t.deepEqual(seen, [[5]]);
    const accepted = rightOf(
      await handleCommand(store, counter, stream, { add: 7 }, { commandId: randomUUID(), metadata, beforeAppend: async (events, state) => right(void seen.push([state, ...events.map((e) => e.data.n)])) }),
    );
    t.is(accepted.state, 7);
    t.deepEqual(seen, [[5], [0, 7]]);
  });
}
