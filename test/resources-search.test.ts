// POST /api-keys/search: filters, sorts, deleted resources, pagination, tenant isolation.
import test from 'ava';
import { isLeft } from 'fp-ts/lib/Either.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { startTestService, type TestService } from './support/service.js';

type Item = { id: string; etag: string; revision: number; created_at: string; deleted_at: string | null; labels: Record<string, string>; data: Record<string, unknown> };
type Page = { items: Item[]; next_cursor?: string };

const json = { 'Content-Type': 'application/json' };

const search = async (s: TestService, body: unknown, query = '', key?: string) => {
  const response = await s.management(`/api-keys/search${query}`, { method: 'POST', headers: json, body: JSON.stringify(body), ...(key ? { key } : {}) });
  return { status: response.status, body: (await response.json()) as Page & { errors?: { location: string }[] } };
};

const create = async (s: TestService, labels: Record<string, string>, annotations: Record<string, string> = {}) => {
  const response = await s.management('/api-keys', { method: 'POST', headers: json, body: JSON.stringify({ labels, annotations }) });
  return (await response.json()) as Item;
};

const label = (key: string, value: string) => ({ labels: [{ operator: 'EQUAL', key, value }] });

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('filter items are ANDed, and so are the fields inside one item', async (t) => {
  const s = service;
  const a = await create(s, { set: 'and', team: 'x' }, { owner: 'ops' });
  await create(s, { set: 'and', team: 'y' }, { owner: 'ops' });
  await create(s, { set: 'and', team: 'x' }, { owner: 'dev' });
  const oneItem = await search(s, { filter: [{ labels: [{ operator: 'EQUAL', key: 'set', value: 'and' }, { operator: 'EQUAL', key: 'team', value: 'x' }], annotations: [{ operator: 'EQUAL', key: 'owner', value: 'ops' }] }] });
  t.is(oneItem.status, 200);
  t.deepEqual(oneItem.body.items.map((i) => i.id), [a.id]);
  const twoItems = await search(s, { filter: [label('set', 'and'), label('team', 'x'), { annotations: [{ operator: 'EQUAL', key: 'owner', value: 'ops' }] }] });
  t.deepEqual(twoItems.body.items.map((i) => i.id), [a.id]);
  t.false(twoItems.body.items.some((i) => 'secret' in i.data), 'search never shows a secret');
  t.is((await search(s, { filter: [label('set', 'and'), label('set', 'none')] })).body.items.length, 0);
});

test('envelope filters: id, etag, revision, created_at and data filters subject_id and expiration', async (t) => {
  const s = service;
  const a = await create(s, { set: 'envelope' });
  const b = await create(s, { set: 'envelope' });
  t.deepEqual((await search(s, { filter: [{ id: { operator: 'EQUAL', value: a.id } }] })).body.items.map((i) => i.id), [a.id]);
  t.deepEqual((await search(s, { filter: [{ etag: { operator: 'EQUAL', value: b.etag } }] })).body.items.map((i) => i.id), [b.id]);
  t.deepEqual(
    (await search(s, { filter: [label('set', 'envelope'), { revision: { operator: 'EQUAL', value: 1 } }] })).body.items.map((i) => i.id).sort(),
    [a.id, b.id].sort(),
  );
  t.deepEqual((await search(s, { filter: [{ data: { subject_id: { operator: 'EQUAL', value: a.data['subject_id'] } } }] })).body.items.map((i) => i.id), [a.id]);
  // The same instant written in another offset.
  const at = new Date(a.created_at);
  const plusOne = `${new Date(at.getTime() + 3_600_000).toISOString().slice(0, 19)}+01:00`;
  const exact = await search(s, { filter: [label('set', 'envelope'), { created_at: { operator: 'BETWEEN', left: plusOne, right: a.created_at } }] });
  t.true(exact.body.items.some((i) => i.id === a.id));

  const expiring = await createApiKey(s.service.store, { tenantId: BOOTSTRAP_TENANT_ID, scopes: ['resources'], expiration: '2030-06-01T00:00:00.000Z' }, { actor: 'test' });
  if (isLeft(expiring)) throw new Error('key');
  await s.service.runner.waitFor(expiring.right.position, 5000);
  const byExpiration = await search(s, { filter: [{ data: { expiration: { operator: 'BETWEEN', left: '2030-01-01T00:00:00Z', right: '2030-12-31T00:00:00Z' } } }] });
  t.deepEqual(byExpiration.body.items.map((i) => i.id), [expiring.right.keyId]);
});

test('sort ASC and DESC, by envelope and data fields', async (t) => {
  const s = service;
  const created = [await create(s, { set: 'sort' }), await create(s, { set: 'sort' }), await create(s, { set: 'sort' })];
  // Two keys may share a millisecond: then the id decides.
  const expected = [...created].sort((x, y) => x.created_at.localeCompare(y.created_at) || x.id.localeCompare(y.id)).map((c) => c.id);
  const asc = await search(s, { filter: [label('set', 'sort')], sort: [{ field: 'CREATED_AT', order: 'ASC' }] });
  t.deepEqual(asc.body.items.map((i) => i.id), expected);
  const desc = await search(s, { filter: [label('set', 'sort')], sort: [{ field: 'CREATED_AT', order: 'DESC' }, { field: 'ID', order: 'DESC' }] });
  t.deepEqual(desc.body.items.map((i) => i.id), [...expected].reverse());
  const bySubject = await search(s, { filter: [label('set', 'sort')], sort: [{ field: 'DATA_SUBJECT_ID', order: 'ASC' }] });
  t.deepEqual(bySubject.body.items.map((i) => String(i.data['subject_id'])), created.map((c) => String(c.data['subject_id'])).sort());
});

test('deleted resources are left out unless a deleted_at filter asks for them', async (t) => {
  const s = service;
  const live = await create(s, { set: 'deleted' });
  const gone = await create(s, { set: 'deleted' });
  const deleted = await s.management(`/api-keys/${gone.id}`, { method: 'DELETE', headers: { 'If-Match': gone.etag } });
  t.is(deleted.status, 200);
  t.deepEqual((await search(s, { filter: [label('set', 'deleted')] })).body.items.map((i) => i.id), [live.id]);
  const asked = await search(s, { filter: [label('set', 'deleted'), { deleted_at: { operator: 'BETWEEN', left: '2000-01-01T00:00:00Z', right: '2100-01-01T00:00:00Z' } }] });
  t.deepEqual(asked.body.items.map((i) => i.id), [gone.id]);
  t.truthy(asked.body.items[0]!.deleted_at);
});

test('pagination: limit and an opaque next_cursor walk every match once, in order', async (t) => {
  const s = service;
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await create(s, { set: 'pages', n: String(i % 3) })).id);
  const query = { filter: [label('set', 'pages')], sort: [{ field: 'CREATED_AT', order: 'DESC' }] };
  const all = (await search(s, query)).body.items.map((i) => i.id);
  t.is(all.length, 7);
  t.is((await search(s, query)).body.next_cursor, undefined);
  const walked: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const result = await search(s, query, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(result.status, 200);
    t.true(result.body.items.length <= 3);
    walked.push(...result.body.items.map((i) => i.id));
    cursor = result.body.next_cursor;
    if (!cursor) break;
  }
  t.deepEqual(walked, all);
  const first = await search(s, query, '?limit=3');
  const otherQuery = await search(s, { ...query, sort: [{ field: 'CREATED_AT', order: 'ASC' }] }, `?limit=3&cursor=${first.body.next_cursor}`);
  t.is(otherQuery.status, 400, 'a cursor belongs to its search');
  t.is((await search(s, query, '?cursor=garbage')).status, 400);
  t.is((await search(s, query, '?limit=0')).status, 400);
  t.is((await search(s, query, '?limit=1001')).status, 400);
});

test('at most 4 filter and 4 sort items; unknown fields and operators are 400', async (t) => {
  const s = service;
  const five = Array.from({ length: 5 }, () => label('a', 'b'));
  const tooManyFilters = await search(s, { filter: five });
  t.is(tooManyFilters.status, 400);
  t.is(tooManyFilters.body.errors?.[0]?.location, 'body.filter');
  t.is((await search(s, { filter: five.slice(0, 4) })).status, 200);
  const sorts = Array.from({ length: 5 }, () => ({ field: 'ID', order: 'ASC' }));
  t.is((await search(s, { sort: sorts })).status, 400);
  t.is((await search(s, { sort: sorts.slice(0, 4) })).status, 200);
  t.is((await search(s, { sort: [{ field: 'DATA_FILESIZE', order: 'ASC' }] })).status, 400);
  const like = await search(s, { filter: [{ labels: [{ operator: 'LIKE', key: 'a', value: 'b' }] }] });
  t.is(like.status, 400);
  t.is(like.body.errors?.[0]?.location, 'body.filter[0].labels[0].operator', 'a failure inside an item keeps its location');
  t.is((await search(s, { filter: [{ created_at: { operator: 'BETWEEN', left: 'yesterday', right: 'today' } }] })).status, 400);
  t.is((await search(s, { filter: [{ data: { expiration: { operator: 'EQUAL', value: 'x' } } }] })).status, 400);
  // A misspelt or unsupported field must not silently match everything.
  const misspelt = await search(s, { filter: [{ label: [{ operator: 'EQUAL', key: 'a', value: 'b' }] }] });
  t.is(misspelt.status, 400);
  t.is(misspelt.body.errors?.[0]?.location, 'body.filter[0].label');
  t.is((await search(s, { filter: [{ data: { filename: { operator: 'EQUAL', value: 'x' } } }] })).status, 400, 'a file field is not an API key field');
});

test('a tenant searches only its own resources', async (t) => {
  const s = service;
  const mine = await create(s, { set: 'tenant' });
  const other = await createTenant(s.service.store, { name: 'other' }, { actor: 'test' });
  if (isLeft(other)) throw new Error('tenant');
  const otherKey = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['admin'], expiration: null }, { actor: 'test' });
  if (isLeft(otherKey)) throw new Error('key');
  await s.service.runner.waitFor(otherKey.right.position, 5000);
  const theirs = await search(s, {}, '', otherKey.right.secret);
  t.deepEqual(theirs.body.items.map((i) => i.id), [otherKey.right.keyId]);
  t.false((await search(s, { filter: [{ id: { operator: 'EQUAL', value: mine.id } }] }, '', otherKey.right.secret)).body.items.length > 0);
});
