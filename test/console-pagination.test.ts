// The console's lists without HTTP: keyset pages over a real SQLite read model (no row on two
// pages, none missed, one tenant only, filters), SQLite's own plan for them (an index walked from
// the cursor, never a scan or a sort: why a page stays as fast over 100,000 sessions), cursors
// that are not ours refused, and sealed values left out of what the console shows.
import test from 'ava';
import { decodeCursor, encodeCursor } from '../projections/keysetPage.js';
import { listPresentations, presentationsProjection } from '../projections/presentations.js';
import type { Row, SqlReader, SqlValue } from '../projections/projection.js';
import { Sqlite } from '../src/sqlite/connection.js';
import { SEALED, withoutSealed } from '../src/console/streamView.js';

const TENANT = 'tenant-a';

const database = (rows: number): Sqlite => {
  const db = Sqlite.open(':memory:', { synchronous: 'NORMAL' });
  db.exec(presentationsProjection.schema);
  for (let i = 0; i < rows; i++) {
    // Two sessions per instant: the key breaks the tie.
    const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 1000).toISOString();
    db.run('INSERT INTO presentations (state, tenant_id, status, created_at, expires_at_ms) VALUES (?, ?, ?, ?, 0)', [`s${String(i).padStart(3, '0')}`, TENANT, i % 3 === 0 ? 'FULFILLED' : 'OPEN', at]);
    db.run('INSERT INTO presentations (state, tenant_id, status, created_at, expires_at_ms) VALUES (?, ?, ?, ?, 0)', [`other${i}`, 'tenant-b', 'OPEN', at]);
  }
  return db;
};

const everyPage = (db: SqlReader, query: { status?: string; from?: string; until?: string }, limit: number): string[][] => {
  const pages: string[][] = [];
  let after: string | null = null;
  do {
    const cursor = after === null ? undefined : decodeCursor(after);
    const page = listPresentations(db, { tenantId: TENANT, limit, ...query, ...(cursor ? { after: cursor } : {}) });
    pages.push(page.items.map((p) => p.state));
    after = page.next;
  } while (after !== null);
  return pages;
};

test('pages follow each other newest first, every session once, of the tenant only', (t) => {
  const db = database(7);
  const pages = everyPage(db, {}, 3);
  t.deepEqual(pages.map((p) => p.length), [3, 3, 1]);
  t.deepEqual(pages.flat(), ['s006', 's005', 's004', 's003', 's002', 's001', 's000']);
  t.deepEqual(everyPage(db, { status: 'FULFILLED' }, 2).flat(), ['s006', 's003', 's000']);
  t.deepEqual(everyPage(db, { from: '2026-01-01T00:00:01.000Z', until: '2026-01-01T00:00:03.000Z' }, 10).flat(), ['s005', 's004', 's003', 's002']);
  t.deepEqual(everyPage(db, {}, 7), [['s006', 's005', 's004', 's003', 's002', 's001', 's000']], 'exactly one page: no empty page after it');
});

/** A reader that hands each query to SQLite's planner instead of running it. */
const planOf = (db: Sqlite, run: (reader: SqlReader) => void): string => {
  const plans: string[] = [];
  const reader: SqlReader = {
    get: () => undefined,
    all: <T extends Row>(sql: string, params: readonly SqlValue[] = []): T[] => {
      plans.push(db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params).map((r) => r.detail).join('; '));
      return [];
    },
  };
  run(reader);
  return plans.join(' | ');
};

test('SQLite walks an index from the cursor: no scan of the table and no sort, with or without a filter', (t) => {
  const db = database(50);
  const after = { at: '2026-01-01T00:00:10.000Z', key: 's020' };
  const plain = planOf(db, (reader) => listPresentations(reader, { tenantId: TENANT, limit: 25, after }));
  t.regex(plain, /SEARCH presentations USING (COVERING )?INDEX presentations_by_tenant \(tenant_id=\? AND/);
  const filtered = planOf(db, (reader) => listPresentations(reader, { tenantId: TENANT, limit: 25, status: 'OPEN', after }));
  t.regex(filtered, /SEARCH presentations USING (COVERING )?INDEX presentations_by_tenant_status \(tenant_id=\? AND status=\? AND/);
  for (const plan of [plain, filtered]) {
    t.notRegex(plan, /SCAN presentations/);
    t.notRegex(plan, /TEMP B-TREE/, 'the order is the index\'s: nothing sorted');
  }
});

test('a cursor not made by the console is refused', (t) => {
  t.deepEqual(decodeCursor(encodeCursor({ at: '2026-01-01T00:00:00.000Z', key: 'x' })), { at: '2026-01-01T00:00:00.000Z', key: 'x' });
  for (const text of ['nonsense', Buffer.from('{"at":1}').toString('base64url'), Buffer.from('["a"]').toString('base64url'), Buffer.from('[1,2]').toString('base64url')]) {
    t.is(decodeCursor(text), undefined, text);
  }
});

test('every sealed value is left out, wherever it sits; everything else is kept', (t) => {
  const sealed = { alg: 'A256GCM', iv: 'aXY', ciphertext: 'Y2lwaGVy', tag: 'dGFn' };
  t.deepEqual(withoutSealed({ a: 1, b: 'x', presentedCredentials: sealed, nested: { list: [sealed, { keep: true }] }, partial: { iv: 'only' } }), {
    a: 1,
    b: 'x',
    presentedCredentials: SEALED,
    nested: { list: [SEALED, { keep: true }] },
    partial: { iv: 'only' },
  });
});
