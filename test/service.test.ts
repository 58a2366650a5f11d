// The service skeleton over real HTTP on loopback: listeners, problems, authentication.
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { countTenants } from '../projections/tenants.js';
import { createApiKey, deleteApiKey } from '../src/tenancy/commands.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { BOOTSTRAP_KEY, startTestService, type TestService } from './support/service.js';

const problemOf = async (response: Response) => {
  return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
};

/** A key of the bootstrap tenant, visible to authentication once the projection has it. */
const newKey = async (t: TestService, options: { scopes?: ('admin' | 'connector' | 'resources')[]; expiration?: string | null } = {}) => {
  const created = await createApiKey(
    t.service.store,
    { tenantId: BOOTSTRAP_TENANT_ID, scopes: options.scopes ?? ['connector'], expiration: options.expiration ?? null },
    { actor: 'test' },
  );
  if (!isRight(created)) throw new Error('key not created');
  await t.service.runner.waitFor(created.right.position, 5000);
  return created.right;
};

test('both listeners answer /health without authentication', async (t) => {
  const s = await startTestService();
  try {
    for (const response of [await s.management('/health', { key: null }), await s.wallet('/health')]) {
      t.is(response.status, 200);
      t.deepEqual(await response.json(), { status: 'ok' });
    }
  } finally {
    await s.cleanup();
  }
});

test('the bootstrap key authenticates as the default tenant', async (t) => {
  const s = await startTestService();
  try {
    const response = await s.management('/tenant');
    t.is(response.status, 200);
    t.like(await response.json(), { tenant_id: BOOTSTRAP_TENANT_ID, name: 'default', api_key: { scopes: ['admin', 'connector', 'resources'] } });
    t.truthy(response.headers.get('x-request-id'));
  } finally {
    await s.cleanup();
  }
});

test('an unauthenticated request gets 401 before any 404, as a problem', async (t) => {
  const s = await startTestService();
  try {
    for (const path of ['/tenant', '/no/such/route']) {
      const response = await s.management(path, { key: null });
      t.is(response.headers.get('www-authenticate'), 'Bearer');
      const problem = await problemOf(response);
      t.is(problem.status, 401);
      t.is(problem.contentType, 'application/problem+json');
      t.like(problem.body, { type: '/problems/unauthorized', status: 401 });
    }
    t.is((await s.management('/tenant', { key: 'not-a-real-key-but-long-enough-0123456789' })).status, 401);
    t.is((await s.management('/tenant', { headers: { Authorization: `Basic ${BOOTSTRAP_KEY}` }, key: null })).status, 401);
  } finally {
    await s.cleanup();
  }
});

test('an authenticated request to an unknown route or method gets a 404 or 405 problem', async (t) => {
  const s = await startTestService();
  try {
    const missing = await problemOf(await s.management('/no/such/route'));
    t.like(missing, { status: 404, contentType: 'application/problem+json', body: { type: '/problems/not-found' } });
    const wrongMethod = await s.management('/tenant', { method: 'DELETE' });
    t.is(wrongMethod.headers.get('allow'), 'HEAD, GET');
    t.like(await problemOf(wrongMethod), { status: 405, body: { type: '/problems/method-not-allowed' } });
    t.like(await problemOf(await s.wallet('/nothing')), { status: 404, contentType: 'application/problem+json' });
  } finally {
    await s.cleanup();
  }
});

test('an expired key and a deleted key are refused with 401', async (t) => {
  const s = await startTestService();
  try {
    const live = await newKey(s);
    t.is((await s.management('/tenant', { key: live.secret })).status, 200);
    const expired = await newKey(s, { expiration: new Date(Date.now() - 1000).toISOString() });
    t.is((await s.management('/tenant', { key: expired.secret })).status, 401);
    const deleted = await deleteApiKey(s.service.store, live.keyId, { actor: 'test' });
    if (!isRight(deleted) || !deleted.right.position) throw new Error('not deleted');
    await s.service.runner.waitFor(deleted.right.position, 5000);
    t.is((await s.management('/tenant', { key: live.secret })).status, 401);
  } finally {
    await s.cleanup();
  }
});

test('a key without the scope a route needs gets 403', async (t) => {
  const s = await startTestService();
  try {
    const connectorOnly = await newKey(s, { scopes: ['connector'] });
    t.like(await problemOf(await s.management('/admin/projections', { key: connectorOnly.secret })), {
      status: 403,
      body: { type: '/problems/forbidden' },
    });
    const admin = await s.management('/admin/projections');
    t.is(admin.status, 200);
    t.like(await admin.json(), { caughtUp: true, failing: null });
  } finally {
    await s.cleanup();
  }
});

test('bootstrap happens once: a restart, or a different key later, creates no second tenant', async (t) => {
  const first = await startTestService();
  await first.stop();
  const second = await startTestService({ dataDir: first.dataDir, env: { BOOTSTRAP_API_KEY: 'another-bootstrap-key-0123456789abcdefghij' } });
  try {
    t.is(countTenants(second.service.runner.db), 1);
    t.is((await second.management('/tenant')).status, 200);
    t.is((await second.management('/tenant', { key: 'another-bootstrap-key-0123456789abcdefghij' })).status, 401);
  } finally {
    await second.cleanup();
  }
});

test('a start that fails half-way closes the event store and read models it opened', async (t) => {
  const running = await startTestService();
  const dataDir = await mkdtemp(join(tmpdir(), 'failed-start-'));
  try {
    const port = new URL(running.service.managementUrl).port;
    const error = await t.throwsAsync(startTestService({ dataDir, env: { MANAGEMENT_PORT: port } }));
    t.is((error as NodeJS.ErrnoException).code, 'EADDRINUSE');
    // SQLite deletes a database's -wal file when its last connection closes.
    const files = await readdir(dataDir);
    t.true(files.includes('events.sqlite'));
    t.deepEqual(files.filter((f) => f.endsWith('-wal')), []);
  } finally {
    await running.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a start that fails once the management listener is up closes that listener again', async (t) => {
  const running = await startTestService();
  const dataDir = await mkdtemp(join(tmpdir(), 'failed-start-'));
  const free = createServer();
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
  const managementPort = String((free.address() as AddressInfo).port);
  await new Promise((resolve) => free.close(resolve));
  try {
    const publicPort = new URL(running.service.publicListenUrl).port;
    const error = await t.throwsAsync(startTestService({ dataDir, env: { MANAGEMENT_PORT: managementPort, PUBLIC_PORT: publicPort } }));
    t.is((error as NodeJS.ErrnoException).code, 'EADDRINUSE');
    const again = createServer();
    await t.notThrowsAsync(new Promise<void>((resolve, reject) => again.once('error', reject).listen(Number(managementPort), '127.0.0.1', resolve)));
    await new Promise((resolve) => again.close(resolve));
  } finally {
    await running.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
});
