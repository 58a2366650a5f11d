// The projection runner: checkpoint with the changes, resume, rebuild, read-your-writes.
import test from 'ava';
import { rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { change, type Projection } from '../projections/projection.js';
import { countTenants, findTenant } from '../projections/tenants.js';
import { START, comparePositions, type EventStore } from '../src/eventstore/port.js';
import { createTenant } from '../src/tenancy/commands.js';
import { dumpReadModels, openRunner, withStoreDir } from './support/readmodels.js';

const withDir = (body: (dir: string, store: EventStore) => Promise<void>): Promise<void> => withStoreDir('runner-', body);

const addTenants = async (store: EventStore, count: number) => {
  const created = [];
  for (let i = 0; i < count; i++) {
    const result = await createTenant(store, { name: `tenant ${i}` }, { actor: 'test' });
    if (!isRight(result)) throw new Error('tenant not created');
    created.push(result.right);
  }
  return created;
};

test('a write is visible once waitFor its position resolves', async (t) => {
  await withDir(async (dir, store) => {
    const runner = await openRunner(store, join(dir, 'rm.sqlite'));
    runner.start();
    const [created] = await addTenants(store, 1);
    t.true(await runner.waitFor(created!.position, 5000));
    t.like(findTenant(runner.db, created!.tenantId), { name: 'tenant 0' });
    t.is(runner.status().checkpoint, `${created!.position.commit}/${created!.position.prepare}`);
    await runner.close();
  });
});

test('waitFor answers false when its position is not reached in time', async (t) => {
  await withDir(async (dir, store) => {
    const runner = await openRunner(store, join(dir, 'rm.sqlite'));
    runner.start();
    t.false(await runner.waitFor({ commit: 1_000_000n, prepare: 1_000_000n }, 30));
    await runner.close();
  });
});

test('a restarted runner resumes at its checkpoint: nothing applied twice, nothing skipped', async (t) => {
  await withDir(async (dir, store) => {
    const file = join(dir, 'rm.sqlite');
    const first = await openRunner(store, file);
    first.start();
    const before = await addTenants(store, 3);
    await first.waitFor(before[2]!.position, 5000);
    await first.close();
    const after = await addTenants(store, 2);
    const second = await openRunner(store, file);
    second.start();
    t.true(await second.waitFor(after[1]!.position, 5000));
    t.is(second.status().applied, 2);
    t.is(countTenants(second.db), 5);
    t.is(second.status().failing, null);
    await second.close();
  });
});

/**
 * A projection recording each tenant stream in `seen`, whose SQL for the tenant named `failOn`
 * fails once, after the insert before it in the same batch was written.
 */
const flakyProjection = (failOn: string) => {
  const state = { failuresLeft: 1 };
  const projection: Projection = {
    name: 'flaky',
    tables: ['seen'],
    schema: 'CREATE TABLE IF NOT EXISTS seen (stream TEXT PRIMARY KEY);',
    apply: (event) => {
      if (!event.streamId.startsWith('tenant-')) return [];
      const insert = change('INSERT INTO seen (stream) VALUES (?)', event.streamId);
      if ((event.data as { name?: string }).name === failOn && state.failuresLeft-- > 0) {
        return [insert, change('INSERT INTO no_such_table VALUES (1)')];
      }
      return [insert];
    },
  };
  return { projection, state };
};

test('a batch that fails to apply leaves no trace and its events are applied again, each alone', async (t) => {
  await withDir(async (dir, store) => {
    // The third event's SQL fails once, after the first two of its batch were written.
    const { projection: flaky, state } = flakyProjection('tenant 2');
    const created = await addTenants(store, 5);
    const runner = await openRunner(store, join(dir, 'rm.sqlite'), [flaky]);
    runner.start();
    t.true(await runner.waitFor(created[4]!.position, 10_000));
    t.is(state.failuresLeft, -1);
    const rows = runner.db.all<{ stream: string }>('SELECT stream FROM seen');
    t.is(rows.length, 5);
    t.is(runner.status().failing, null);
    await runner.close();
  });
});

test('live events that arrive while a transaction commits are applied together in the next one', async (t) => {
  await withDir(async (dir, store) => {
    const runner = await openRunner(store, join(dir, 'rm.sqlite'));
    runner.start();
    await runner.whenCaughtUp();
    const before = runner.status();
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createTenant(store, { name: `tenant ${i}` }, { actor: 'test' })),
    );
    const last = created.map((c) => (isRight(c) ? c.right.position : START)).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
    t.true(await runner.waitFor(last, 10_000));
    const after = runner.status();
    t.is(countTenants(runner.db), 40);
    t.is(after.applied - before.applied, 40);
    t.true(after.commits - before.commits < 40, `${after.commits - before.commits} transactions for 40 events`);
    await runner.close();
  });
});

test('a live batch that fails to apply is applied again, event by event, and later events follow', async (t) => {
  await withDir(async (dir, store) => {
    const { projection: flaky, state } = flakyProjection('tenant 1');
    const runner = await openRunner(store, join(dir, 'rm.sqlite'), [flaky]);
    runner.start();
    await runner.whenCaughtUp();
    const created = await addTenants(store, 4);
    t.true(await runner.waitFor(created[3]!.position, 10_000));
    t.is(state.failuresLeft, -1);
    t.is(runner.db.all('SELECT stream FROM seen').length, 4);
    t.is(runner.status().failing, null);
    await runner.close();
  });
});

test('a rebuild, or a deleted read-model file, reproduces the same read models', async (t) => {
  await withDir(async (dir, store) => {
    const file = join(dir, 'rm.sqlite');
    const runner = await openRunner(store, file);
    runner.start();
    const created = await addTenants(store, 20);
    await runner.waitFor(created[19]!.position, 5000);
    const incremental = await dumpReadModels(runner.db);
    t.is(incremental['tenants']!.length, 20);
    const progress: number[] = [];
    await runner.rebuild((status) => progress.push(status.applied));
    t.deepEqual(await dumpReadModels(runner.db), incremental);
    t.true(progress.length > 0);
    await runner.close();
    await rm(file);
    const fresh = await openRunner(store, file);
    fresh.start();
    await fresh.whenCaughtUp();
    t.deepEqual(await dumpReadModels(fresh.db), incremental);
    await fresh.close();
  });
});

test('a changed projection schema rebuilds the read models from the start', async (t) => {
  await withDir(async (dir, store) => {
    const file = join(dir, 'rm.sqlite');
    const version = (column: string): Projection => ({
      name: 'names',
      tables: ['names'],
      schema: `CREATE TABLE IF NOT EXISTS names (${column} TEXT);`,
      apply: (event) => (event.streamId.startsWith('tenant-') ? [change(`INSERT INTO names (${column}) VALUES (?)`, randomUUID())] : []),
    });
    const created = await addTenants(store, 3);
    const v1 = await openRunner(store, file, [version('a')]);
    v1.start();
    await v1.waitFor(created[2]!.position, 5000);
    await v1.close();
    const v2 = await openRunner(store, file, [version('b')]);
    v2.start();
    await v2.whenCaughtUp();
    t.is((await v2.db.all('SELECT b FROM names')).length, 3);
    await v2.close();
  });
});
