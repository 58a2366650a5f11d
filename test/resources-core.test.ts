// The versioned-resource core through the api-keys kind: envelope, etags, conditional reads and
// writes, delete and restore, history and revisions, tenant isolation, concurrent writers.
import test from 'ava';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { withTestService, type TestService } from './support/service.js';

type Body = Record<string, unknown> & { etag: string; revision: number; id: string; deleted_at: string | null; data: Record<string, unknown> };

const json = { 'Content-Type': 'application/json' };

const createKey = async (s: TestService, body: unknown = {}, key?: string) => {
  const response = await s.management('/api-keys', { method: 'POST', headers: json, body: JSON.stringify(body), ...(key ? { key } : {}) });
  return { response, body: (await response.json()) as Body };
};

const put = (s: TestService, path: string, body: unknown, ifMatch?: string) =>
  s.management(path, { method: 'PUT', headers: { ...json, ...(ifMatch ? { 'If-Match': ifMatch } : {}) }, body: JSON.stringify(body) });

test('POST /api-keys answers 201 with the envelope, the secret once, ETag and Location; the key authenticates', async (t) => {
  await withTestService(async (s) => {
    const { response, body } = await createKey(s, { annotations: { team: 'billing' }, labels: { env: 'test' } });
    t.is(response.status, 201);
    t.regex(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.deepEqual(body.kind, { name: 'api-key', version: 1 });
    t.is(body.revision, 1);
    t.regex(body.etag, /^"[^"]+"$/);
    t.is(response.headers.get('etag'), body.etag);
    t.is(response.headers.get('location'), `/api-keys/${body.id}`);
    t.is(body.created_at, body.modified_at);
    t.is(body.deleted_at, null);
    t.deepEqual(body.annotations, { team: 'billing' });
    t.deepEqual(body.labels, { env: 'test' });
    t.is(body.data['expiration'], null);
    t.regex(String(body.data['subject_id']), /^[0-9a-f-]{36}$/);
    t.regex(String(body.data['secret']), /^ck_/);
    const asNewKey = await s.management('/tenant', { key: String(body.data['secret']) });
    t.is(asNewKey.status, 200);
    t.like(await asNewKey.json(), { api_key: { id: body.id } });

    const latest = await s.management(`/api-keys/${body.id}`);
    t.is(latest.status, 200);
    const read = (await latest.json()) as Body;
    t.false('secret' in read.data, 'the secret is only in the create response');
    t.deepEqual({ ...read, data: { ...read.data, secret: body.data['secret'] } }, body);
    t.is(latest.headers.get('etag'), body.etag);
  });
});

test('If-None-Match on latest, history and revision: a match is 304 with the ETag and no body', async (t) => {
  await withTestService(async (s) => {
    const { body } = await createKey(s);
    for (const path of [`/api-keys/${body.id}`, `/api-keys/${body.id}/history`, `/api-keys/${body.id}/revisions/1`]) {
      for (const tag of [body.etag, `W/${body.etag}`, `"other", ${body.etag}`]) {
        const response = await s.management(path, { headers: { 'If-None-Match': tag } });
        t.is(response.status, 304, `${path} ${tag}`);
        t.is(response.headers.get('etag'), body.etag);
        t.is(await response.text(), '');
      }
      const stale = await s.management(path, { headers: { 'If-None-Match': '"stale"' } });
      t.is(stale.status, 200);
    }
  });
});

test('annotations and labels need a current strong If-Match: missing 428, stale or weak 412 and nothing written', async (t) => {
  await withTestService(async (s) => {
    const { body } = await createKey(s);
    const path = `/api-keys/${body.id}/annotations`;
    const missing = await put(s, path, { annotations: { a: 'b' } });
    t.is(missing.status, 428);
    t.is(missing.headers.get('content-type'), 'application/problem+json');
    t.is((await put(s, path, { annotations: { a: 'b' } }, '"stale"')).status, 412);
    t.is((await put(s, path, { annotations: { a: 'b' } }, `W/${body.etag}`)).status, 412);
    t.is((await put(s, path, { annotations: { a: 'b' } }, 'not-an-etag')).status, 400);
    t.is((await put(s, path, { annotations: { a: 1 } }, body.etag)).status, 400);
    const history = (await (await s.management(`/api-keys/${body.id}/history`)).json()) as { items: Body[] };
    t.is(history.items.length, 1, 'refused writes record nothing');

    const updated = await put(s, path, { annotations: { a: 'b' } }, body.etag);
    t.is(updated.status, 200);
    const v2 = (await updated.json()) as Body;
    t.is(v2.revision, 2);
    t.not(v2.etag, body.etag);
    t.is(updated.headers.get('etag'), v2.etag);
    t.deepEqual(v2['annotations'], { a: 'b' });
    t.false('secret' in v2.data);
    const labelled = await put(s, `/api-keys/${body.id}/labels`, { labels: { x: 'y' } }, v2.etag);
    t.is(labelled.status, 200);
    const v3 = (await labelled.json()) as Body;
    t.is(v3.revision, 3);
    t.deepEqual(v3['labels'], { x: 'y' });
    t.deepEqual(v3['annotations'], { a: 'b' });
    t.is((await put(s, path, { annotations: {} }, v2.etag)).status, 412, 'the etag of revision 2 is stale now');
  });
});

test('a non-JSON body is 415', async (t) => {
  await withTestService(async (s) => {
    const response = await s.management('/api-keys', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    t.is(response.status, 415);
  });
});

test('delete revokes the key and restore re-enables it, each a new revision; repeating either is 409', async (t) => {
  await withTestService(async (s) => {
    const { body } = await createKey(s);
    const secret = String(body.data['secret']);
    t.is((await s.management(`/api-keys/${body.id}`, { method: 'DELETE' })).status, 428);
    const deleted = await s.management(`/api-keys/${body.id}`, { method: 'DELETE', headers: { 'If-Match': body.etag } });
    t.is(deleted.status, 200);
    const v2 = (await deleted.json()) as Body;
    t.is(v2.revision, 2);
    t.truthy(v2.deleted_at);
    t.is((await s.management('/tenant', { key: secret })).status, 401, 'a deleted key does not authenticate');
    const latest = (await (await s.management(`/api-keys/${body.id}`)).json()) as Body;
    t.is(latest.deleted_at, v2.deleted_at, 'latest answers a deleted resource with deleted_at set');
    t.is((await s.management(`/api-keys/${body.id}`, { method: 'DELETE', headers: { 'If-Match': v2.etag } })).status, 409);
    t.is((await put(s, `/api-keys/${body.id}/labels`, { labels: {} }, v2.etag)).status, 409);

    const restored = await s.management(`/api-keys/${body.id}/restore`, { method: 'POST', headers: { 'If-Match': v2.etag } });
    t.is(restored.status, 200);
    const v3 = (await restored.json()) as Body;
    t.is(v3.revision, 3);
    t.is(v3.deleted_at, null);
    t.is((await s.management('/tenant', { key: secret })).status, 200, 'a restored key authenticates again');
    t.is((await s.management(`/api-keys/${body.id}/restore`, { method: 'POST', headers: { 'If-Match': v3.etag } })).status, 409);

    const history = await s.management(`/api-keys/${body.id}/history`);
    t.is(history.headers.get('etag'), v3.etag, 'history carries the latest etag');
    const items = ((await history.json()) as { items: Body[] }).items;
    t.deepEqual(items.map((i) => i.revision), [1, 2, 3]);
    t.deepEqual(items.map((i) => i.etag), [body.etag, v2.etag, v3.etag]);
    t.truthy(items[1]!.deleted_at);
    const r2 = await s.management(`/api-keys/${body.id}/revisions/2`);
    t.is(r2.status, 200);
    t.is(r2.headers.get('etag'), v2.etag);
    t.deepEqual(await r2.json(), v2);
    t.is((await s.management(`/api-keys/${body.id}/revisions/4`)).status, 404);
    t.is((await s.management(`/api-keys/${body.id}/revisions/0`)).status, 400);
    t.is((await s.management(`/api-keys/${body.id}/revisions/1000000`)).status, 400);
  });
});

test('another tenant\'s id and an unknown id are 404, also with a stale If-Match (404 wins over 412)', async (t) => {
  await withTestService(async (s) => {
    const { body } = await createKey(s);
    const other = await createTenant(s.service.store, { name: 'other' }, { actor: 'test' });
    if (isLeft(other)) throw new Error('tenant');
    const otherKey = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['admin'], expiration: null }, { actor: 'test' });
    if (isLeft(otherKey)) throw new Error('key');
    await s.service.runner.waitFor(otherKey.right.position, 5000);
    const key = otherKey.right.secret;
    for (const id of [body.id, '5b0c4a52-5f0c-4d3e-9b1a-2f6f7f1f9c10']) {
      t.is((await s.management(`/api-keys/${id}`, { key })).status, 404);
      t.is((await s.management(`/api-keys/${id}/history`, { key })).status, 404);
      t.is((await s.management(`/api-keys/${id}/revisions/1`, { key })).status, 404);
      t.is((await s.management(`/api-keys/${id}`, { key, method: 'DELETE', headers: { 'If-Match': '"stale"' } })).status, 404);
      t.is((await s.management(`/api-keys/${id}/restore`, { key, method: 'POST', headers: { 'If-Match': body.etag } })).status, 404);
    }
    t.is((await s.management(`/api-keys/${body.id}`)).status, 200, 'the owner still sees it');
    t.is((await s.management('/api-keys/not-a-uuid')).status, 400);
  });
});

test('api-keys need the admin scope', async (t) => {
  await withTestService(async (s) => {
    const created = await createApiKey(s.service.store, { tenantId: '00000000-0000-4000-8000-000000000001', scopes: ['resources'], expiration: null }, { actor: 'test' });
    if (!isRight(created)) throw new Error('key');
    await s.service.runner.waitFor(created.right.position, 5000);
    t.is((await createKey(s, {}, created.right.secret)).response.status, 403);
    t.is((await s.management(`/api-keys/${created.right.keyId}`, { key: created.right.secret })).status, 403);
  });
});

test('concurrent writers with the same etag: exactly one succeeds, the others get 412', async (t) => {
  await withTestService(async (s) => {
    const { body } = await createKey(s);
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put(s, `/api-keys/${body.id}/labels`, { labels: { writer: String(i) } }, body.etag).then((r) => r.status)),
    );
    t.deepEqual(statuses.filter((x) => x === 200).length, 1);
    t.deepEqual(statuses.filter((x) => x === 412).length, 7);
    const items = ((await (await s.management(`/api-keys/${body.id}/history`)).json()) as { items: Body[] }).items;
    t.is(items.length, 2);
  });
});
