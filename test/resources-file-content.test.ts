// One live file per content in a tenant, decided by the event store (src/resources/fileContent.ts):
// racing creates, delete and create again, restore against a live holder, tenants apart.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { claimFileContent, heldAt, releaseFileContentAt } from '../src/resources/fileContent.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { startTestService, type TestService } from './support/service.js';

type FileBody = { id: string; etag: string; revision: number; deleted_at: string | null; data: { digest_multibase: string } };

const json = { 'Content-Type': 'application/json' };

const uploaded = async (s: TestService, bytes: string, key?: string): Promise<string> => {
  const response = await s.management('/files/upload', { method: 'POST', ...(key ? { key } : {}) });
  const body = (await response.json()) as { blob_id: string; upload_uri: string };
  const url = new URL(body.upload_uri);
  const put = await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: bytes });
  if (put.status !== 200) throw new Error(`upload ${put.status}`);
  return body.blob_id;
};

const createFile = async (s: TestService, blobId: string, key?: string) => {
  const response = await s.management(`/files?blob_id=${blobId}`, { method: 'POST', headers: json, body: '{}', ...(key ? { key } : {}) });
  return { status: response.status, body: (await response.json()) as FileBody };
};

const change = async (s: TestService, file: { id: string; etag: string }, op: 'delete' | 'restore') => {
  const response = await s.management(op === 'delete' ? `/files/${file.id}` : `/files/${file.id}/restore`, {
    method: op === 'delete' ? 'DELETE' : 'POST',
    headers: { 'If-Match': file.etag },
  });
  return { status: response.status, body: (await response.json()) as FileBody };
};

const liveWithDigest = async (s: TestService, digest: string, key?: string): Promise<string[]> => {
  const response = await s.management('/files/search', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ filter: [{ data: { digest_multibase: { operator: 'EQUAL', value: digest } } }] }),
    ...(key ? { key } : {}),
  });
  const items = ((await response.json()) as { items: FileBody[] }).items;
  return items.filter((i) => i.deleted_at === null).map((i) => i.id);
};

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('two creates of the same content at once: exactly one 201 and one 409, whatever the interleaving', async (t) => {
  const s = service;
  for (let round = 0; round < 8; round++) {
    const bytes = `raced content ${round} ${randomUUID()}`;
    const [a, b] = await Promise.all([uploaded(s, bytes), uploaded(s, bytes)]);
    const results = await Promise.all([createFile(s, a), createFile(s, b)]);
    t.deepEqual(results.map((r) => r.status).sort(), [201, 409], `round ${round}`);
    const winner = results.find((r) => r.status === 201)!;
    t.deepEqual(await liveWithDigest(s, winner.body.data.digest_multibase), [winner.body.id]);
  }
});

test('delete then create with the same content is 201; restoring the deleted one is then 409', async (t) => {
  const s = service;
  const bytes = `restored content ${randomUUID()}`;
  const first = await createFile(s, await uploaded(s, bytes));
  t.is(first.status, 201);
  const deleted = await change(s, first.body, 'delete');
  t.is(deleted.status, 200);
  const second = await createFile(s, await uploaded(s, bytes));
  t.is(second.status, 201, 'a delete releases the content');

  t.is((await change(s, first.body, 'restore')).status, 412, 'a stale etag is 412 before the 409');
  const refused = await change(s, deleted.body, 'restore');
  t.is(refused.status, 409, 'another live file holds the content');
  const still = (await (await s.management(`/files/${first.body.id}`)).json()) as FileBody;
  t.not(still.deleted_at, null, 'the refused restore recorded nothing');
  t.is(still.revision, deleted.body.revision);
  t.deepEqual(await liveWithDigest(s, second.body.data.digest_multibase), [second.body.id]);

  // Once the holder is deleted, the first file may come back, and then holds the content again.
  t.is((await change(s, second.body, 'delete')).status, 200);
  const restored = await change(s, deleted.body, 'restore');
  t.is(restored.status, 200);
  t.is((await createFile(s, await uploaded(s, bytes))).status, 409, 'the restored file holds the content');
  t.deepEqual(await liveWithDigest(s, first.body.data.digest_multibase), [first.body.id]);
});

test('a restore racing a create of the same content, or another restore: one live file, and it holds the content', async (t) => {
  const s = service;
  for (let round = 0; round < 6; round++) {
    const bytes = `restore race ${round} ${randomUUID()}`;
    const first = await createFile(s, await uploaded(s, bytes));
    const deleted = await change(s, first.body, 'delete');
    const blobId = await uploaded(s, bytes);
    const [restored, created] = await Promise.all([change(s, deleted.body, 'restore'), createFile(s, blobId)]);
    t.deepEqual([restored.status, created.status].sort(), [200, 409], `round ${round}: restore ${restored.status}, create ${created.status}`);
    const live = restored.status === 200 ? restored.body : created.body;
    t.deepEqual(await liveWithDigest(s, first.body.data.digest_multibase), [live.id]);

    // Two restores with the same etag: one wins (the other is 412), and the content stays held.
    t.is((await change(s, live, 'delete')).status, 200);
    const again = (await (await s.management(`/files/${live.id}`)).json()) as FileBody;
    const both = await Promise.all([change(s, again, 'restore'), change(s, again, 'restore')]);
    t.deepEqual(both.map((r) => r.status).sort(), [200, 412], `round ${round}`);
    t.is((await createFile(s, await uploaded(s, bytes))).status, 409, `round ${round}: the restored file holds the content`);
  }
});

test('the same content in two tenants: both 201', async (t) => {
  const s = service;
  const other = await createTenant(s.service.store, { name: `other ${randomUUID()}` }, { actor: 'test' });
  if (isLeft(other)) throw new Error('tenant');
  const otherKey = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['resources'], expiration: null }, { actor: 'test' });
  if (isLeft(otherKey)) throw new Error('key');
  await s.service.runner.waitFor(otherKey.right.position, 5000);
  const bytes = `shared content ${randomUUID()}`;
  const [mine, theirs] = await Promise.all([uploaded(s, bytes), uploaded(s, bytes, otherKey.right.secret)]);
  const results = await Promise.all([createFile(s, mine), createFile(s, theirs, otherKey.right.secret)]);
  t.deepEqual(results.map((r) => r.status), [201, 201]);
});

test('a release is appended at the revision it names: a claim made since wins', async (t) => {
  const store = service.service.store;
  const content = { tenantId: randomUUID(), digestMultibase: `z${randomUUID()}`, at: new Date().toISOString() };
  const meta = { actor: 'test' };
  const a = { ...content, fileId: 'a' };
  const b = { ...content, fileId: 'b' };
  const first = await claimFileContent(store, a, meta);
  if (isLeft(first)) throw new Error('a');
  t.true(isLeft(await claimFileContent(store, b, meta)), 'held by a');
  t.true(isLeft(await claimFileContent(store, a, meta)), 'a create never claims twice');
  const again = await claimFileContent(store, a, meta, true);
  if (isLeft(again)) throw new Error('a restore claims again');
  t.is(await heldAt(store, a), again.right);
  t.is(await heldAt(store, b), undefined);
  await releaseFileContentAt(store, a, first.right, meta);
  t.is(await heldAt(store, a), again.right, 'the release at the older revision was refused');
  await releaseFileContentAt(store, a, again.right, meta);
  t.is(await heldAt(store, a), undefined);
  t.false(isLeft(await claimFileContent(store, b, meta)));
});
