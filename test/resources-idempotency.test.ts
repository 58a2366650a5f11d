// Idempotency-Key on the resource API's writes, stored through the event store.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { idempotencyStream, replyOwner } from '../streams/idempotency.js';
import { fingerprintOf, keyHashOf } from '../src/resources/idempotency.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { withTestService, type TestService } from './support/service.js';

type Body = Record<string, unknown> & { etag: string; id: string; revision: number; data: Record<string, unknown> };

const newKey = () => `${randomUUID()}-${randomUUID()}`;

const create = (s: TestService, idempotencyKey: string, body: unknown = {}, key?: string) =>
  s.management('/api-keys', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify(body),
    ...(key ? { key } : {}),
  });

const keyCount = async (s: TestService): Promise<number> =>
  Number((s.service.runner.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM resources WHERE kind = 'api-key'"))?.n);

test('a malformed Idempotency-Key is 400 and nothing is written', async (t) => {
  await withTestService(async (s) => {
    const before = await keyCount(s);
    for (const bad of ['short', 'x'.repeat(257), `${'a'.repeat(40)}_`, `${'a'.repeat(40)} b`]) {
      const response = await create(s, bad);
      t.is(response.status, 400, bad);
      t.like(await response.json(), { errors: [{ location: 'header.idempotency-key' }] });
    }
    t.is(await keyCount(s), before);
  });
});

test('the same key and the same request replay the first response (status, body, ETag) without executing again', async (t) => {
  await withTestService(async (s) => {
    const before = await keyCount(s);
    const key = newKey();
    const first = await create(s, key, { labels: { a: 'b', c: 'd' } });
    t.is(first.status, 201);
    const firstBody = (await first.json()) as Body;
    // Member order does not make it another request.
    const again = await create(s, key, { labels: { c: 'd', a: 'b' } });
    t.is(again.status, 201);
    t.is(again.headers.get('idempotent-replayed'), 'true');
    t.is(again.headers.get('etag'), firstBody.etag);
    t.is(again.headers.get('location'), first.headers.get('location'));
    t.deepEqual(await again.json(), firstBody, 'the same key, secret included');
    t.is(await keyCount(s), before + 1);
  });
});

test('the same key with a different request is 422; the first reply stays', async (t) => {
  await withTestService(async (s) => {
    const key = newKey();
    t.is((await create(s, key, { labels: { a: 'b' } })).status, 201);
    const other = await create(s, key, { labels: { a: 'c' } });
    t.is(other.status, 422);
    t.is(other.headers.get('content-type'), 'application/problem+json');
    const onAnotherRoute = await s.management(`/api-keys/${randomUUID()}`, { method: 'DELETE', headers: { 'If-Match': '"x"', 'Idempotency-Key': key } });
    t.is(onAnotherRoute.status, 422);
    t.is((await create(s, key, { labels: { a: 'b' } })).status, 201);
  });
});

test('delete and restore replays: the recorded answer, not a 409 from running again; a recorded 412 replays too', async (t) => {
  await withTestService(async (s) => {
    const created = (await (await create(s, newKey())).json()) as Body;
    const key = newKey();
    const del = () => s.management(`/api-keys/${created.id}`, { method: 'DELETE', headers: { 'If-Match': created.etag, 'Idempotency-Key': key } });
    const first = await del();
    t.is(first.status, 200);
    const again = await del();
    t.is(again.status, 200);
    t.deepEqual(await again.json(), await first.json());

    const staleKey = newKey();
    const stale = () =>
      s.management(`/api-keys/${created.id}/labels`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', 'If-Match': '"stale"', 'Idempotency-Key': staleKey },
        body: JSON.stringify({ labels: {} }),
      });
    t.is((await stale()).status, 412);
    const replayed = await stale();
    t.is(replayed.status, 412);
    t.is(replayed.headers.get('content-type'), 'application/problem+json');
    t.like(await replayed.json(), { status: 412 });
  });
});

test('keys are per tenant: another tenant with the same key runs its own request', async (t) => {
  await withTestService(async (s) => {
    const other = await createTenant(s.service.store, { name: 'other' }, { actor: 'test' });
    if (isLeft(other)) throw new Error('tenant');
    const otherKey = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['admin'], expiration: null }, { actor: 'test' });
    if (isLeft(otherKey)) throw new Error('key');
    await s.service.runner.waitFor(otherKey.right.position, 5000);
    const key = newKey();
    const mine = (await (await create(s, key)).json()) as Body;
    const theirs = await create(s, key, { labels: { different: 'body' } }, otherKey.right.secret);
    t.is(theirs.status, 201);
    t.not(((await theirs.json()) as Body).id, mine.id);
  });
});

test('while the first request with a key is running, the same request is 409 and a different one 422', async (t) => {
  await withTestService(async (s) => {
    const key = newKey();
    // Another instance's claim for the same request, as recorded while that instance runs it.
    const now = new Date();
    const claimed = await s.service.store.append(
      idempotencyStream(keyHashOf(BOOTSTRAP_TENANT_ID, key)),
      [{
        id: randomUUID(),
        type: 'IdempotencyKeyClaimed',
        data: { claimId: randomUUID(), fingerprint: fingerprintOf('POST', '/api-keys', '', {}), claimedAt: now.toISOString(), expiresAt: new Date(now.getTime() + 86_400_000).toISOString() },
      }],
      'no_stream',
    );
    t.false(isLeft(claimed));
    const before = await keyCount(s);
    t.is((await create(s, key)).status, 409);
    t.is((await create(s, key, { labels: { other: 'request' } })).status, 422);
    t.is(await keyCount(s), before, 'nothing executed');
  });
});

test('concurrent requests with one key: exactly one executes, the others are 409 or the replay', async (t) => {
  await withTestService(async (s) => {
    const before = await keyCount(s);
    const key = newKey();
    const responses = await Promise.all(Array.from({ length: 6 }, () => create(s, key)));
    const statuses = responses.map((r) => r.status);
    t.true(statuses.every((x) => x === 201 || x === 409), statuses.join());
    const ids = new Set<string>();
    for (const r of responses) if (r.status === 201) ids.add(((await r.json()) as Body).id);
    t.is(ids.size, 1);
    t.is(await keyCount(s), before + 1);
  });
});

test('after 24 hours a key is free again: the same request runs anew', async (t) => {
  await withTestService(async (s) => {
    const key = newKey();
    const dayAgo = new Date(Date.now() - 86_400_000 - 1000);
    const claimed = await s.service.store.append(
      idempotencyStream(keyHashOf(BOOTSTRAP_TENANT_ID, key)),
      [{ id: randomUUID(), type: 'IdempotencyKeyClaimed', data: { claimId: randomUUID(), fingerprint: 'x', claimedAt: dayAgo.toISOString(), expiresAt: new Date(dayAgo.getTime() + 86_400_000).toISOString() } }],
      'no_stream',
    );
    t.false(isLeft(claimed));
    const before = await keyCount(s);
    const response = await create(s, key);
    t.is(response.status, 201);
    t.is(response.headers.get('idempotent-replayed'), null);
    t.is(await keyCount(s), before + 1);
  });
});

test('a reply already shredded by an instance whose clock is ahead is not a 500: the same request runs anew', async (t) => {
  await withTestService(async (s) => {
    const key = newKey();
    const first = (await (await create(s, key)).json()) as Body;
    const read = await s.service.store.readStream(idempotencyStream(keyHashOf(BOOTSTRAP_TENANT_ID, key)));
    const recorded = read._tag === 'Found' ? read.events.find((e) => e.type === 'IdempotentReplyRecorded') : undefined;
    if (!recorded) return t.fail('no reply recorded');
    await s.service.context.dataKeys.destroy(replyOwner((recorded.data as { claimId: string }).claimId));
    const again = await create(s, key);
    t.is(again.status, 201);
    t.is(again.headers.get('idempotent-replayed'), null);
    t.not(((await again.json()) as Body).id, first.id);
  });
});
