// Allocation of Status List entries on a real store: indices at random, each handed out once
// across lists, a full list left for the next, and one offer never given two entries.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { latestStatusList } from '../projections/statusLists.js';
import { credentialStatus, credentialStatusStream } from '../streams/credentialStatus.js';
import { loadStream } from '../src/eventstore/handle.js';
import type { EventStore } from '../src/eventstore/port.js';
import type { ProjectionRunner } from '../src/readside/projectionRunner.js';
import { createStatusAllocator, type StatusAllocator } from '../src/issuance/status/allocation.js';
import { openRunner, openStore } from './support/readmodels.js';
import { rightOf } from './support/either.js';

const PUBLIC_URL = 'https://issuer.example';
const metadata = { actor: 'test' };
/** The deployment's credential issuer, whose lists are at PUBLIC_URL. */
const DEPLOYMENT = { identifier: PUBLIC_URL, tenantId: undefined };

const withAllocator = async (listSize: number, body: (allocator: StatusAllocator, store: EventStore, runner: ProjectionRunner) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), 'status-allocation-'));
  const store = await openStore(dir);
  const runner = await openRunner(store, join(dir, 'readmodels.sqlite'));
  runner.start();
  try {
    await body(createStatusAllocator({ store, db: runner.db, listSize }), store, runner);
  } finally {
    await runner.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

test('indices are random positions, not issuance order, and all different', async (t) => {
  await withAllocator(131072, async (allocator) => {
    const references = [];
    for (let i = 0; i < 20; i++) references.push(rightOf(await allocator.referenceFor(`offer-${i}`, 'tenant', new Date(), metadata, DEPLOYMENT)));
    const indices = references.map((r) => r.idx);
    t.is(new Set(indices).size, 20);
    t.true(references.every((r) => r.listId === 1 && r.uri === `${PUBLIC_URL}/status-lists/1`));
    // Sequential allocation would put 20 credentials within 20 positions.
    t.true(Math.max(...indices) - Math.min(...indices) > 20);
    t.notDeepEqual(indices, [...indices].sort((a, b) => a - b));
  });
});

test('no index is ever handed out twice: a small list fills, the next one starts, each entry within its list', async (t) => {
  await withAllocator(8, async (allocator) => {
    const references = [];
    for (let i = 0; i < 30; i++) references.push(rightOf(await allocator.referenceFor(`offer-${i}`, 'tenant', new Date(), metadata, DEPLOYMENT)));
    t.is(new Set(references.map((r) => `${r.listId}.${r.idx}`)).size, 30);
    t.true(references.every((r) => r.idx >= 0 && r.idx < 8 && r.uri === `${PUBLIC_URL}/status-lists/${r.listId}`));
    const perList = new Map<number, number>();
    for (const r of references) perList.set(r.listId, (perList.get(r.listId) ?? 0) + 1);
    t.true([...perList.values()].every((n) => n <= 8));
    t.true(perList.size >= 4);
    // Lists are started in order, none skipped.
    t.deepEqual([...perList.keys()].sort((a, b) => a - b), Array.from({ length: perList.size }, (_, i) => i + 1));
  });
});

test('an offer that already has its entry gets the same one again, also when two requests race', async (t) => {
  await withAllocator(131072, async (allocator, store) => {
    const [a, b] = await Promise.all([1, 2].map(() => allocator.referenceFor('offer-x', 'tenant', new Date(), metadata, DEPLOYMENT)));
    t.deepEqual(rightOf(a!), rightOf(b!));
    t.deepEqual(rightOf(await allocator.referenceFor('offer-x', 'tenant', new Date(), metadata, DEPLOYMENT)), rightOf(a!));
    const loaded = rightOf(await loadStream(store, credentialStatus, credentialStatusStream('offer-x')));
    t.is(loaded.expectedRevision, 0);
  });
});

test('the latest list in the read model is where a fresh allocator starts', async (t) => {
  await withAllocator(8, async (allocator, store, runner) => {
    for (let i = 0; i < 12; i++) rightOf(await allocator.referenceFor(`offer-${i}`, 'tenant', new Date(), metadata, DEPLOYMENT));
    const last = await store.readAll({ direction: 'backwards', maxCount: 1 });
    t.true(await runner.waitFor(last[0]!.position, 5000));
    const latest = latestStatusList(runner.db)!;
    t.true(latest.list_id >= 2);
    const fresh = createStatusAllocator({ store, db: runner.db, listSize: 8 });
    t.true(rightOf(await fresh.referenceFor('offer-late', 'tenant', new Date(), metadata, DEPLOYMENT)).listId >= latest.list_id);
  });
});

test('each credential issuer has its own lists: a tenant\'s own issuer numbers them from 1 under its identifier, and none holds another issuer\'s entries', async (t) => {
  await withAllocator(8, async (allocator, store, runner) => {
    const tenant = { identifier: `${PUBLIC_URL}/issuers/tenant-a`, tenantId: 'tenant-a' };
    const other = { identifier: `${PUBLIC_URL}/issuers/tenant-b`, tenantId: 'tenant-b' };
    const deployment = [];
    const own = [];
    for (let i = 0; i < 10; i++) {
      deployment.push(rightOf(await allocator.referenceFor(`deployment-${i}`, 'tenant', new Date(), metadata, DEPLOYMENT)));
      own.push(rightOf(await allocator.referenceFor(`tenant-a-${i}`, 'tenant-a', new Date(), metadata, tenant)));
    }
    const first = rightOf(await allocator.referenceFor('tenant-b-0', 'tenant-b', new Date(), metadata, other));
    t.true(deployment.every((r) => r.uri === `${PUBLIC_URL}/status-lists/${r.listId}` && r.issuerTenantId === undefined));
    t.true(own.every((r) => r.uri === `${tenant.identifier}/status-lists/${r.listId}` && r.issuerTenantId === 'tenant-a'));
    t.is(first.listId, 1, 'another issuer starts its own list 1');
    t.is(first.uri, `${other.identifier}/status-lists/1`);
    // The read model keeps each issuer's lists apart.
    const last = await store.readAll({ direction: 'backwards', maxCount: 1 });
    t.true(await runner.waitFor(last[0]!.position, 5000));
    t.is(latestStatusList(runner.db, 'tenant-b')!.list_id, 1);
    t.true(latestStatusList(runner.db, 'tenant-a')!.list_id >= 2);
    t.true(latestStatusList(runner.db)!.list_id >= 2);
    const entries = runner.db.all<{ issuer: string; offer_id: string }>('SELECT issuer, offer_id FROM status_list_entries', []);
    t.true(entries.every((e) => (e.issuer === '' ? e.offer_id.startsWith('deployment-') : e.offer_id.startsWith(`${e.issuer}-`))));
  });
});
