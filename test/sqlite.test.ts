// Two connections on one file, as the service and the ops tool have.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { START } from '../src/eventstore/port.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { Sqlite } from '../src/sqlite/connection.js';

const tempFile = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sqlite-'));
  return { file: join(dir, 'db.sqlite'), remove: () => rm(dir, { recursive: true, force: true }) };
};

test('a connection that read one row still sees rows committed later by another connection', async (t) => {
  const { file, remove } = await tempFile();
  const a = Sqlite.open(file, { synchronous: 'NORMAL' });
  const b = Sqlite.open(file, { synchronous: 'NORMAL' });
  try {
    await a.exec('CREATE TABLE items (n INTEGER)');
    await a.run('INSERT INTO items VALUES (1)');
    t.deepEqual(await a.get('SELECT COUNT(*) AS c FROM items'), { c: 1 });
    await b.run('INSERT INTO items VALUES (2)');
    t.deepEqual(await a.get('SELECT COUNT(*) AS c FROM items'), { c: 2 });
    t.deepEqual(await a.all('SELECT n FROM items ORDER BY n'), [{ n: 1 }, { n: 2 }]);
  } finally {
    await a.close();
    await b.close();
    await remove();
  }
});

test('a statement that cannot be prepared fails its call and rolls its transaction back', async (t) => {
  const { file, remove } = await tempFile();
  const db = Sqlite.open(file, { synchronous: 'NORMAL' });
  try {
    db.exec('CREATE TABLE items (n INTEGER)');
    for (let attempt = 0; attempt < 2; attempt++) {
      t.throws(
        () =>
          db.transaction(() => {
            db.run('INSERT INTO items VALUES (1)');
            db.run('INSERT INTO no_such_table VALUES (1)');
          }),
        { any: true, message: /no such table/ },
      );
    }
    t.deepEqual(db.get('SELECT COUNT(*) AS c FROM items'), { c: 0 });
  } finally {
    db.close();
    await remove();
  }
});

test('two embedded stores on one file see and respect each other\'s appends', async (t) => {
  const { file, remove } = await tempFile();
  const service = await openSqliteEventStore({ file, pollIntervalMs: 20 });
  const ops = await openSqliteEventStore({ file, pollIntervalMs: 20 });
  try {
    const stream = `shared-${randomUUID()}`;
    t.true(isRight(await service.append(stream, [{ id: randomUUID(), type: 'A', data: {} }], 'no_stream')));
    t.is((await service.readStream(stream))._tag, 'Found');
    const subscription = service.subscribeToAll({ after: START });
    const iterator = subscription[Symbol.asyncIterator]();
    t.like((await iterator.next()).value, { kind: 'event' });
    t.like((await iterator.next()).value, { kind: 'caughtUp' });
    t.true(isRight(await ops.append(stream, [{ id: randomUUID(), type: 'B', data: {} }], 0)));
    const stale = await service.append(stream, [{ id: randomUUID(), type: 'C', data: {} }], 0);
    t.like(stale, { _tag: 'Left', left: { _tag: 'WrongExpectedRevision', actual: 1 } });
    const read = await service.readStream(stream);
    t.deepEqual(read._tag === 'Found' ? read.events.map((e) => e.type) : [], ['A', 'B']);
    t.like((await iterator.next()).value, { kind: 'event', event: { type: 'B' } });
    await subscription.stop();
  } finally {
    await service.close();
    await ops.close();
    await remove();
  }
});

test('two embedded stores on one file racing on the same streams get answers, never SQLITE_BUSY', async (t) => {
  const { file, remove } = await tempFile();
  const stores = [await openSqliteEventStore({ file }), await openSqliteEventStore({ file })];
  try {
    // Exact expectations on shared streams: most appends are refused, and explaining a refusal
    // reads while the other store commits.
    const attempts = Array.from({ length: 400 }, (_, i) =>
      stores[i % 2]!.append(`race-${i % 4}`, [{ id: randomUUID(), type: 'Race', data: { i } }], Math.floor(i / 8) - 1),
    );
    const results = await Promise.allSettled(attempts);
    const thrown = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    t.deepEqual(thrown, []);
    t.true(results.some((r) => r.status === 'fulfilled' && isRight(r.value)));
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    await remove();
  }
});

test('appends asked for together commit together, each with its own outcome', async (t) => {
  const { file, remove } = await tempFile();
  const store = await openSqliteEventStore({ file });
  const event = (type: string) => [{ id: randomUUID(), type, data: {} }];
  try {
    const [first, clash, other, tombstoned] = await Promise.all([
      store.append('one', event('A'), 'no_stream'),
      store.append('one', event('B'), 'no_stream'),
      store.append('two', event('C'), 'no_stream'),
      store.tombstone('three', 'any'),
    ]);
    t.like(first, { _tag: 'Right', right: { nextExpectedRevision: 0 } });
    t.like(clash, { _tag: 'Left', left: { _tag: 'WrongExpectedRevision', actual: 0 } });
    t.like(other, { _tag: 'Right', right: { nextExpectedRevision: 0 } });
    t.true(isRight(tombstoned));
    const positions = [first, other].map((r) => (isRight(r) ? Number(r.right.position.commit) : 0));
    t.deepEqual(positions, [positions[0], positions[0]! + 1]);
    const read = await store.readStream('one');
    t.deepEqual(read._tag === 'Found' ? read.events.map((e) => e.type) : [], ['A']);
  } finally {
    await store.close();
    await remove();
  }
});

test('an append while another connection holds the write lock waits with the event loop free, and commits once the lock is released', async (t) => {
  const { file, remove } = await tempFile();
  const store = await openSqliteEventStore({ file });
  const other = Sqlite.open(file, { synchronous: 'NORMAL' });
  try {
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const appended = store.append('held', [{ id: randomUUID(), type: 'Held', data: {} }], 'no_stream').finally(() => (settled = true));
    // SQLite's busy handler would sleep on this thread: no timer could fire until it gave up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.false(settled);
    other.exec('COMMIT');
    t.like(await appended, { _tag: 'Right', right: { nextExpectedRevision: 0 } });
  } finally {
    other.close();
    await store.close();
    await remove();
  }
});
