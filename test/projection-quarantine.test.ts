// The projection runner with an event a projection cannot apply: the event is set aside for that
// projection (recorded, logged once, without its data), everything around it is applied, and a
// failure of the database instead stalls the runner and sets nothing aside.
import test from 'ava';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { allProjections } from '../projections/index.js';
import { change, type Projection } from '../projections/projection.js';
import { countTenants } from '../projections/tenants.js';
import { draftStream } from '../streams/draft.js';
import { formatPosition, type EventStore, type Position } from '../src/eventstore/port.js';
import { createLogger } from '../src/log.js';
import { isEnvironmental } from '../src/readside/projectionFailure.js';
import { ProjectionRunner } from '../src/readside/projectionRunner.js';
import { acknowledgeQuarantine, listQuarantine } from '../src/readside/quarantine.js';
import { createTenant } from '../src/tenancy/commands.js';
import { bounded } from './support/bounded.js';
import { appendPoisonRevision } from './support/poison.js';
import { withStoreDir } from './support/readmodels.js';

const BOUND_MS = 60_000;

const withDir = (body: (dir: string, store: EventStore) => Promise<void>): Promise<void> => withStoreDir('quarantine-', body);

/** A runner whose log lines are kept. */
const openLoggedRunner = async (store: EventStore, file: string, projections: readonly Projection[] = allProjections) => {
  const lines: string[] = [];
  const runner = ProjectionRunner.open({ store, file, projections, log: createLogger({ level: 'info', write: (line) => lines.push(line) }) });
  return { runner, lines };
};

const addTenant = async (store: EventStore, name: string): Promise<Position> => {
  const created = await createTenant(store, { name }, { actor: 'test' });
  if (!isRight(created)) throw new Error('tenant not created');
  return created.right.position;
};

/** A draft of a made-up tenant (the resources projection opens nothing sealed), then its poison revision. */
const addPoisonedDraft = async (store: EventStore, draftId: string): Promise<Position> => {
  const data = { type: [], linked_credential_refs: [], linked_draft_refs: [], meta_schema: null, json_ld_vocabs: [], vcdm_json_schemas: [], schema: { type: 'object' }, sealed: { alg: 'A256GCM', iv: 'aXY', ciphertext: 'Y3Q', tag: 'dGFn' } };
  const created = await store.append(
    draftStream(draftId),
    [{ id: randomUUID(), type: 'DraftCreated', data: { draftId, tenantId: 't1', data, annotations: {}, labels: { marker: 'label-value-never-logged' }, createdAt: new Date().toISOString() } }],
    'no_stream',
  );
  if (isLeft(created)) throw new Error('draft not created');
  return appendPoisonRevision(store, draftId);
};

/** Records every stream it sees: shows a projection applying the event another sets aside. */
const seenProjection: Projection = {
  name: 'seen',
  tables: ['seen'],
  schema: 'CREATE TABLE IF NOT EXISTS seen (position TEXT PRIMARY KEY);',
  apply: (event) => [change('INSERT INTO seen (position) VALUES (?)', formatPosition(event.position))],
};

/** The error a real SQLite raises for `provoke`. */
const sqliteError = (provoke: (db: Database.Database) => void): Error => {
  const db = new Database(':memory:');
  try {
    provoke(db);
  } catch (err) {
    return err as Error;
  } finally {
    db.close();
  }
  throw new Error('SQLite raised nothing');
};

const diskFull = (): Error =>
  sqliteError((db) => {
    db.exec('CREATE TABLE t (x)');
    db.pragma('max_page_count = 2');
    db.prepare('INSERT INTO t VALUES (randomblob(100000))').run();
  });

test('failures of the database are told from failures of an event by what SQLite reports', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'classify-'));
  try {
    const file = join(dir, 'x.sqlite');
    const holder = new Database(file);
    holder.exec('CREATE TABLE t (x)');
    holder.exec('BEGIN IMMEDIATE');
    const waiter = new Database(file, { timeout: 0 });
    const busy = (() => {
      try {
        waiter.exec('BEGIN IMMEDIATE');
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    waiter.close();
    holder.close();
    t.is((busy as { code?: string }).code, 'SQLITE_BUSY');
    t.true(isEnvironmental(busy));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  t.true(isEnvironmental(diskFull()));
  const malformed = sqliteError((db) => db.prepare('SELECT json(?)').get('{"a":'));
  t.is((malformed as { code?: string }).code, 'SQLITE_ERROR');
  t.false(isEnvironmental(malformed));
  t.false(isEnvironmental(sqliteError((db) => db.exec('CREATE TABLE u (x PRIMARY KEY); INSERT INTO u VALUES (1); INSERT INTO u VALUES (1);'))));
  t.false(isEnvironmental(new TypeError('a bug in a projection')));
});

test('an event a projection cannot apply is set aside, logged once without its data; its batch and the other projections go on', async (t) => {
  await withDir(async (dir, store) => {
    const draftId = randomUUID();
    await addTenant(store, 'before');
    const poison = await addPoisonedDraft(store, draftId);
    const after = await addTenant(store, 'after');
    const { runner, lines } = await openLoggedRunner(store, join(dir, 'rm.sqlite'), [...allProjections, seenProjection]);
    try {
      runner.start();
      t.true(await runner.waitFor(after, BOUND_MS));
      t.is(countTenants(runner.db), 2);
      t.like(runner.status(), { checkpoint: formatPosition(after), failing: null, quarantine: { total: 1, unacknowledged: 1 } });
      const [entry, ...more] = listQuarantine(runner.db);
      t.deepEqual(more, []);
      t.like(entry, { projection: 'resources', position: formatPosition(poison), stream: draftStream(draftId), type: 'DraftUpdated', acknowledged: false });
      t.regex(entry!.reason, /^SQLITE_ERROR: malformed JSON/);
      // The draft's creation was applied; its poison revision was not, not even in part.
      t.deepEqual(runner.db.all('SELECT revision FROM resource_revisions WHERE id = ?', [draftId]), [{ revision: 1 }]);
      t.is(runner.db.all('SELECT position FROM seen').length, 4, 'the other projection applied every event, the poison too');

      const logged = lines.filter((line) => line.includes('set aside'));
      t.is(logged.length, 1);
      t.like(JSON.parse(logged[0]!), { level: 'error', projection: 'resources', position: formatPosition(poison), type: 'DraftUpdated' });
      for (const data of [draftId, 'nested', 'label-value-never-logged']) t.false(lines.join('\n').includes(data), data);
    } finally {
      await runner.close();
    }
  });
});

test('what is recorded of a failure never quotes the event: a broken contract names places, a thrown message is left out', async (t) => {
  await withDir(async (dir, store) => {
    const broken = await store.append('tenant-broken', [{ id: randomUUID(), type: 'TenantCreated', data: { tenantId: 42, name: 'value-never-recorded' } }], 'no_stream');
    if (isLeft(broken)) throw new Error('not appended');
    const parsing: Projection = {
      name: 'parsing',
      tables: [],
      schema: '',
      apply: (event) => (event.streamId === 'tenant-broken' ? [change('SELECT ?', JSON.parse(`{"${String((event.data as { name: string }).name)}`) as string)] : []),
    };
    const { runner } = await openLoggedRunner(store, join(dir, 'rm.sqlite'), [...allProjections, parsing]);
    try {
      runner.start();
      t.true(await runner.waitFor(broken.right.position, BOUND_MS));
      const reasons = Object.fromEntries(listQuarantine(runner.db).map((e) => [e.projection, e.reason]));
      t.regex(reasons['tenants']!, /breaks its contract \(.*data\.tenantId: expected string/);
      t.is(reasons['parsing'], 'SyntaxError thrown by the projection (message not recorded: it may quote event data)');
      t.false(JSON.stringify(reasons).includes('value-never-recorded'));
    } finally {
      await runner.close();
    }
  });
});

test('a failure of the database stalls the runner and sets nothing aside; the event is applied once it clears', async (t) => {
  await withDir(async (dir, store) => {
    const state = { failuresLeft: 2 };
    const full: Projection = {
      name: 'full',
      tables: ['full_rows'],
      schema: 'CREATE TABLE IF NOT EXISTS full_rows (stream TEXT);',
      apply: (event) => {
        if (event.streamId.startsWith('tenant-') && state.failuresLeft-- > 0) throw diskFull();
        return [change('INSERT INTO full_rows (stream) VALUES (?)', event.streamId)];
      },
    };
    const position = await addTenant(store, 'a');
    const { runner, lines } = await openLoggedRunner(store, join(dir, 'rm.sqlite'), [full]);
    try {
      runner.start();
      t.true(await runner.waitFor(position, BOUND_MS));
      t.is(runner.db.all('SELECT stream FROM full_rows').length, 1);
      t.like(runner.status(), { failing: null, quarantine: { total: 0 } });
      t.is(lines.filter((line) => line.includes('projection stalled')).length, 2);
      t.false(lines.some((line) => line.includes('set aside')));
    } finally {
      await runner.close();
    }
  });
});

test('a rebuild that a failure of the database stops ends, with that failure', async (t) => {
  await withDir(async (dir, store) => {
    await addTenant(store, 'a');
    const alwaysFull: Projection = { name: 'always_full', tables: [], schema: '', apply: () => { throw diskFull(); } };
    const { runner } = await openLoggedRunner(store, join(dir, 'rm.sqlite'), [alwaysFull]);
    try {
      // better-sqlite3's errors are not native errors, which t.throwsAsync insists on.
      const stopped = await bounded(runner.rebuild(), BOUND_MS, 'the rebuild did not end').then(
        () => undefined,
        (err: unknown) => err,
      );
      t.like(stopped, { code: 'SQLITE_FULL', message: 'database or disk is full' });
      t.is(runner.status().quarantine.total, 0);
    } finally {
      await runner.close();
    }
  });
});

test('a rebuild records the quarantine again; an acknowledgment, kept in the store, outlives it', async (t) => {
  await withDir(async (dir, store) => {
    const poison = await addPoisonedDraft(store, randomUUID());
    const { runner } = await openLoggedRunner(store, join(dir, 'rm.sqlite'));
    try {
      runner.start();
      t.true(await runner.waitFor(poison, BOUND_MS));
      const refused = await acknowledgeQuarantine(store, { commit: 999_999n, prepare: 999_999n }, { actor: 'test' });
      t.true(isLeft(refused), 'no event at that position');
      const acknowledged = await acknowledgeQuarantine(store, poison, { actor: 'test' });
      if (!isRight(acknowledged) || !acknowledged.right.position) throw new Error('not acknowledged');
      t.true(await runner.waitFor(acknowledged.right.position, BOUND_MS));
      t.like(runner.status().quarantine, { total: 1, unacknowledged: 0 });

      const progress: number[] = [];
      await bounded(runner.rebuild((s) => progress.push(s.applied)), BOUND_MS, 'the rebuild did not end');
      t.true(progress.length > 0);
      t.like(listQuarantine(runner.db), [{ position: formatPosition(poison), acknowledged: true }]);
      t.like(runner.status().quarantine, { total: 1, unacknowledged: 0 });
    } finally {
      await runner.close();
    }
  });
});
