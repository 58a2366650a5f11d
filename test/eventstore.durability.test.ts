// Durability of the embedded store: appends are acknowledged, and events delivered to
// subscriptions, only once a flush of the WAL that started after their commit has completed.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { START, type EventStore, type SubscriptionMessage } from '../src/eventstore/port.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { WalFlush } from '../src/eventstore/walFlush.js';

/** A WAL flush whose fdatasyncs wait until the test lets them through, or fail when told. */
class HeldFlush extends WalFlush {
  syncs = 0;
  private readonly held: { release: () => void; fail: (err: Error) => void }[] = [];

  protected override sync(): Promise<void> {
    this.syncs++;
    return new Promise((release, fail) => this.held.push({ release, fail }));
  }

  get waiting(): number {
    return this.held.length;
  }

  release(): void {
    this.held.shift()!.release();
  }

  fail(err: Error): void {
    this.held.shift()!.fail(err);
  }
}

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

const withStore = async (body: (store: EventStore, flush: HeldFlush) => Promise<void>): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'durability-'));
  const flush = new HeldFlush(join(dir, 'events.sqlite'));
  const store = await openSqliteEventStore({ file: join(dir, 'events.sqlite'), walFlush: flush, pollIntervalMs: 20 });
  try {
    await body(store, flush);
  } finally {
    while (flush.waiting > 0) flush.release();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

const event = (type: string) => [{ id: randomUUID(), type, data: {} }];

test('flushes asked for while one runs share the next one', async (t) => {
  const flush = new HeldFlush('/nonexistent/events.sqlite');
  const first = flush.flush();
  const later = Array.from({ length: 10 }, () => flush.flush());
  t.is(flush.syncs, 1);
  flush.release();
  await first;
  await turns();
  t.is(flush.syncs, 2, 'one more flush covers everything asked for while the first ran');
  flush.release();
  await Promise.all(later);
  t.is(flush.syncs, 2);
});

test('after a failed flush, every later flush fails with the same error', async (t) => {
  const flush = new HeldFlush('/nonexistent/events.sqlite');
  const first = flush.flush();
  const queued = flush.flush();
  flush.fail(new Error('EIO: i/o error, fdatasync'));
  await t.throwsAsync(first, { message: /EIO/ });
  await t.throwsAsync(queued, { message: /EIO/ });
  await t.throwsAsync(flush.flush(), { message: /EIO/ });
  t.is(flush.syncs, 1, 'no flush is attempted after a failure');
});

test('an append is acknowledged, and delivered to subscriptions, only once the WAL is flushed', async (t) => {
  await withStore(async (store, flush) => {
    const delivered: SubscriptionMessage[] = [];
    const subscription = store.subscribeToAll({ after: START });
    void (async () => {
      for await (const message of subscription) delivered.push(message);
    })();
    await turns();
    t.deepEqual(delivered, [{ kind: 'caughtUp' }]);

    let acknowledged = false;
    const appended = store.append('held', event('Held'), 'no_stream').then((r) => ((acknowledged = true), r));
    await turns();
    t.is(flush.waiting, 1);
    t.false(acknowledged);
    t.is((await store.readStream('held'))._tag, 'Found', 'committed and readable before it is durable');
    await new Promise((resolve) => setTimeout(resolve, 60)); // past a poll of the subscription
    t.is(delivered.length, 1, 'the subscription delivers nothing a power cut could undo');

    flush.release();
    t.true(isRight(await appended));
    await turns();
    t.like(delivered[1], { kind: 'event', event: { streamId: 'held', type: 'Held' } });
    await subscription.stop();
  });
});

test('appends asked for while a flush runs wait for it, then commit together under one more flush', async (t) => {
  await withStore(async (store, flush) => {
    const first = store.append('first', event('First'), 'no_stream');
    await turns();
    t.is(flush.syncs, 1);
    const later: ReturnType<EventStore['append']>[] = [];
    for (let i = 0; i < 5; i++) {
      later.push(store.append(`later-${i}`, event('Later'), 'no_stream'));
      await turns(1);
    }
    t.is((await store.readStream('later-0'))._tag, 'StreamNotFound', 'not committed while the flush before it runs');
    flush.release();
    t.true(isRight(await first));
    await turns();
    t.is(flush.syncs, 2, 'the five share one commit and one flush');
    flush.release();
    const positions = (await Promise.all(later)).map((r) => (isRight(r) ? Number(r.right.position.commit) : 0));
    t.deepEqual(positions, positions.map((_, i) => positions[0]! + i));
  });
});

test('a failed flush rejects the appends waiting on it, and the store acknowledges nothing after', async (t) => {
  await withStore(async (store, flush) => {
    const waiting = [store.append('a', event('A'), 'no_stream'), store.append('b', event('B'), 'no_stream')];
    await turns();
    flush.fail(new Error('EIO: i/o error, fdatasync'));
    for (const append of waiting) await t.throwsAsync(append, { message: /EIO/ });
    await t.throwsAsync(store.append('c', event('C'), 'no_stream'), { message: /EIO/ });
  });
});
