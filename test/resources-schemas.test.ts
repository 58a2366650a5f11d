// Schemas: create, publish (public, immutable), published-schemas search.
import test from 'ava';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number; data: Record<string, unknown> };

const json = { 'Content-Type': 'application/json' };
const claims = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

const createSchema = async (s: TestService, slug: string, version = '1.0.0') => {
  const response = await s.management('/schemas', { method: 'POST', headers: json, body: JSON.stringify({ data: { slug, version, schema: claims } }) });
  return { status: response.status, body: (await response.json()) as Resource };
};

const publish = (s: TestService, id: string, ifMatch?: string) =>
  s.management(`/schemas/${id}/publish`, { method: 'PATCH', headers: ifMatch ? { 'If-Match': ifMatch } : {} });

const search = async (s: TestService, path: string, slug: string) =>
  ((await (await s.management(path, { method: 'POST', headers: json, body: JSON.stringify({ filter: [{ data: { slug: { operator: 'EQUAL', value: slug } } }] }) })).json()) as { items: Resource[] }).items;

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('a schema is created unpublished; slug and version are checked and unique among live schemas', async (t) => {
  const s = service;
  const created = await createSchema(s, 'membership');
  t.is(created.status, 201);
  t.deepEqual(created.body.data, { slug: 'membership', version: '1.0.0', schema: claims, published_at: null, url: null });
  t.is((await createSchema(s, 'membership')).status, 409);
  t.is((await createSchema(s, 'membership', '1.0.1')).status, 201);
  t.is((await createSchema(s, 'Not A Slug')).status, 400);
  const noSchema = await s.management('/schemas', { method: 'POST', headers: json, body: JSON.stringify({ data: { slug: 'x', version: '1' } }) });
  t.is(noSchema.status, 400);
});

test('publishing needs If-Match, serves the schema publicly and freezes it', async (t) => {
  const s = service;
  const { body } = await createSchema(s, 'pid');
  t.is((await s.wallet(`/published-schemas/${body.id}`)).status, 404, 'not public before publishing');
  t.is((await publish(s, body.id)).status, 428);
  t.is((await publish(s, body.id, '"stale"')).status, 412);
  const published = await publish(s, body.id, body.etag);
  t.is(published.status, 200);
  const v2 = (await published.json()) as Resource;
  t.is(v2.revision, 2);
  t.truthy(v2.data['published_at']);
  t.is(v2.data['url'], `${s.config.publicUrl}/published-schemas/${body.id}`);

  const open = await s.wallet(`/published-schemas/${body.id}`);
  t.is(open.status, 200);
  t.deepEqual(await open.json(), { slug: 'pid', version: '1.0.0', schema: claims });

  t.is((await publish(s, body.id, v2.etag)).status, 409);
  t.is((await s.management(`/schemas/${body.id}`, { method: 'DELETE', headers: { 'If-Match': v2.etag } })).status, 409);
  const labels = await s.management(`/schemas/${body.id}/labels`, { method: 'PUT', headers: { ...json, 'If-Match': v2.etag }, body: JSON.stringify({ labels: { a: 'b' } }) });
  t.is(labels.status, 409);
  t.is((await publish(s, body.id, body.etag)).status, 412, 'a stale etag is 412 before the 409');
});

test('published-schemas search finds only published schemas', async (t) => {
  const s = service;
  const draft = await createSchema(s, 'searched', '1');
  const done = await createSchema(s, 'searched', '2');
  t.is((await publish(s, done.body.id, done.body.etag)).status, 200);
  t.deepEqual((await search(s, '/published-schemas/search', 'searched')).map((i) => i.id), [done.body.id]);
  t.deepEqual((await search(s, '/schemas/search', 'searched')).map((i) => i.id).sort(), [draft.body.id, done.body.id].sort());
});
