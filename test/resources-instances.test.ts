// Two service instances over one event store (the EventStoreDB double, as production instances
// share a cluster and a key-encryption key): Idempotency-Key and If-Match hold across them.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEventStoreDbDouble } from './support/esdb-double/index.js';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number };

const json = { 'Content-Type': 'application/json' };

const twoInstances = async (run: (one: TestService, two: TestService) => Promise<void>): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'resources-instances-'));
  const double = await startEventStoreDbDouble();
  const env = {
    EVENTSTORE_CONNECTION_STRING: double.connectionString,
    DATA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    BLOB_DIR: join(dir, 'blobs'),
  };
  await Promise.all(['one', 'two'].map((d) => mkdir(join(dir, d))));
  // One after the other: the second finds the bootstrap tenant the first made.
  const one = await startTestService({ dataDir: join(dir, 'one'), env });
  const two = await startTestService({ dataDir: join(dir, 'two'), env });
  try {
    await run(one, two);
  } finally {
    await one.stop();
    await two.stop();
    await double.stop();
    await rm(dir, { recursive: true, force: true });
  }
};

/** Reads on `s` until the resource is in its read models (instances project on their own). */
const visible = async (s: TestService, path: string): Promise<void> => {
  for (let i = 0; i < 100; i++) {
    if ((await s.management(path)).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} never became visible`);
};

test('an Idempotency-Key sent to two instances at once runs the request once; the other instance replays it', async (t) => {
  await twoInstances(async (one, two) => {
    const key = `${randomUUID()}-${randomUUID()}`;
    const create = (s: TestService) => s.management('/api-keys', { method: 'POST', headers: { ...json, 'Idempotency-Key': key }, body: '{"labels":{"x":"y"}}' });
    const first = await Promise.all([create(one), create(two)]);
    const statuses = first.map((r) => r.status).sort();
    t.true(statuses.every((s) => s === 201 || s === 409), statuses.join());
    const created = new Set<string>();
    for (const r of first) if (r.status === 201) created.add(((await r.json()) as Resource).id);
    t.is(created.size, 1);
    for (const s of [one, two]) {
      const again = await create(s);
      t.is(again.status, 201);
      t.is(again.headers.get('idempotent-replayed'), 'true');
      t.deepEqual(new Set([((await again.json()) as Resource).id]), created);
    }
  });
});

test('writers on two instances holding the same etag: exactly one succeeds, the other gets 412', async (t) => {
  await twoInstances(async (one, two) => {
    const created = (await (await one.management('/api-keys', { method: 'POST', headers: json, body: '{}' })).json()) as Resource;
    await visible(two, `/api-keys/${created.id}`);
    const put = (s: TestService, n: string) =>
      s.management(`/api-keys/${created.id}/labels`, { method: 'PUT', headers: { ...json, 'If-Match': created.etag }, body: JSON.stringify({ labels: { n } }) });
    const statuses = (await Promise.all([put(one, '1'), put(two, '2'), put(one, '3'), put(two, '4')])).map((r) => r.status);
    t.is(statuses.filter((s) => s === 200).length, 1, statuses.join());
    t.is(statuses.filter((s) => s === 412).length, 3, statuses.join());
  });
});

test('with a shared BLOB_DIR, an upload URL made by one instance is accepted by the other, and any instance serves the bytes', async (t) => {
  await twoInstances(async (one, two) => {
    const upload = (await (await one.management('/files/upload', { method: 'POST' })).json()) as { blob_id: string; upload_uri: string };
    const url = new URL(upload.upload_uri);
    t.is((await two.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'shared' })).status, 200);
    const file = (await (await one.management(`/files?blob_id=${upload.blob_id}`, { method: 'POST', headers: json, body: '{}' })).json()) as Resource;
    await visible(two, `/files/${file.id}`);
    for (const s of [one, two]) t.is(await (await s.management(`/files/${file.id}/revisions/1/blob`)).text(), 'shared');
  });
});
