// Probes: /health/live (the process answers) and /health/ready (the store answers, the read models
// are caught up within READINESS_MAX_LAG_MS, every quarantined event is acknowledged), on both
// listeners and without authentication; 503 names each failing check and shows no error text.
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import type { EventStore } from '../src/eventstore/port.js';
import { healthRouter, publicApp, startingApp } from '../src/app/apps.js';
import { silentLogger } from '../src/log.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { acknowledgeQuarantine } from '../src/readside/quarantine.js';
import { projectionsCheck, readiness, storeCheck, type ReadinessCheck } from '../src/readiness.js';
import { createTenant } from '../src/tenancy/commands.js';
import { appendPoisonRevision } from './support/poison.js';
import { openRunner, openStore } from './support/readmodels.js';
import { withTestService, type TestService } from './support/service.js';

interface Probe {
  readonly status: number;
  readonly body: { status: string; checks: { name: string; ok: boolean; detail?: string }[] };
}

const probe = async (response: Response): Promise<Probe> => ({ status: response.status, body: (await response.json()) as Probe['body'] });

const failing = (p: Probe) => p.body.checks.filter((c) => !c.ok).map((c) => c.name);

const ready = async (s: TestService): Promise<Probe> => probe(await s.management('/health/ready', { key: null }));

/** Serves `app` on loopback for `body`. */
const serving = async (app: { callback(): Parameters<typeof createServer>[1] }, body: (url: string) => Promise<void>): Promise<void> => {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
};

test('both listeners answer /health/live and /health/ready without authentication: ready once caught up, nothing quarantined', async (t) => {
  await withTestService(async (s) => {
    for (const response of [await s.management('/health/live', { key: null }), await s.wallet('/health/live')]) {
      t.is(response.status, 200);
      t.deepEqual(await response.json(), { status: 'live' });
    }
    for (const response of [await s.management('/health/ready', { key: null }), await s.wallet('/health/ready')]) {
      const p = await probe(response);
      t.is(p.status, 200);
      t.is(response.headers.get('cache-control'), 'no-store');
      t.deepEqual(p.body, { status: 'ready', checks: ['store', 'projections', 'quarantine', 'started'].map((name) => ({ name, ok: true })) });
    }
  });
});

test('not ready, naming the store, when the store fails or does not answer; its error is not shown', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'readiness-'));
  const store = await openStore(dir);
  const runner = await openRunner(store, join(dir, 'rm.sqlite'));
  try {
    runner.start();
    await runner.whenCaughtUp();
    const failingStore = new Proxy(store, {
      get: (target, name) => (name === 'readAll' ? () => Promise.reject(new Error('connect ECONNREFUSED esdb://admin:changeit@10.1.2.3:2113')) : Reflect.get(target, name)),
    });
    const silentStore = new Proxy(store, { get: (target, name) => (name === 'readAll' ? () => new Promise(() => undefined) : Reflect.get(target, name)) });
    for (const [unreachable, detail] of [
      [failingStore, /reading the event store failed/],
      [silentStore, /did not answer within \d+ ms/],
    ] as const) {
      const checks: ReadinessCheck[] = [storeCheck(unreachable as EventStore), projectionsCheck(runner, unreachable as EventStore, 10_000)];
      await serving(publicApp({ log: silentLogger, metrics: createMetrics(silentLogger), routers: [healthRouter(readiness(() => checks, silentLogger))] }), async (url) => {
        const response = await fetch(`${url}/health/ready`);
        const text = await response.text();
        t.is(response.status, 503);
        const p = JSON.parse(text) as Probe['body'];
        t.is(p.status, 'not_ready');
        t.deepEqual(p.checks.map((c) => [c.name, c.ok]), [['store', false], ['projections', false]]);
        t.regex(p.checks[0]!.detail!, detail);
        t.false(/changeit|10\.1\.2\.3|ECONNREFUSED/.test(text));
      });
    }
  } finally {
    await runner.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('not ready while the read models are behind the store by READINESS_MAX_LAG_MS; ready again once caught up', async (t) => {
  await withTestService(
    async (s) => {
      t.is((await ready(s)).status, 200);
      await s.service.runner.stop();
      const created = await createTenant(s.service.store, { name: 'late' }, { actor: 'test' });
      if (!isRight(created)) throw new Error('tenant not created');
      const behind = await ready(s);
      t.is(behind.status, 503);
      t.deepEqual(failing(behind), ['projections']);
      t.regex(behind.body.checks.find((c) => c.name === 'projections')!.detail!, /^behind: the oldest event not yet applied was recorded \d+ ms ago \(bound 0 ms\)$/);
      s.service.runner.start();
      t.true(await s.service.runner.waitFor(created.right.position, 60_000));
      t.is((await ready(s)).status, 200);
    },
    { env: { READINESS_MAX_LAG_MS: '0' } },
  );
});

test('not ready while a quarantined event is not acknowledged; acknowledged, it no longer holds readiness back', async (t) => {
  await withTestService(async (s) => {
    const response = await s.management('/drafts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: { schema: { schema: { type: 'object' } } } }),
    });
    t.is(response.status, 201);
    const draft = (await response.json()) as { id: string };
    const poison = await appendPoisonRevision(s.service.store, draft.id);
    t.true(await s.service.runner.waitFor(poison, 60_000));
    const quarantined = await probe(await s.wallet('/health/ready'));
    t.is(quarantined.status, 503);
    t.deepEqual(failing(quarantined), ['quarantine']);
    t.is(quarantined.body.checks.find((c) => c.name === 'quarantine')!.detail, '1 quarantined event(s) not acknowledged');

    const acknowledged = await acknowledgeQuarantine(s.service.store, poison, { actor: 'test' });
    if (!isRight(acknowledged) || !acknowledged.right.position) throw new Error('not acknowledged');
    t.true(await s.service.runner.waitFor(acknowledged.right.position, 60_000));
    t.is((await probe(await s.wallet('/health/ready'))).status, 200);
  });
});

test('while the service starts, both listeners answer probes, not ready, and 503 with Retry-After to anything else', async (t) => {
  const starting = startingApp({
    log: silentLogger,
    metrics: createMetrics(silentLogger),
    listener: 'public',
    readiness: readiness(() => [{ name: 'started', failure: async () => 'the service is starting' }], silentLogger),
  });
  await serving(starting, async (url) => {
    t.is((await fetch(`${url}/health/live`)).status, 200);
    t.deepEqual(await probe(await fetch(`${url}/health/ready`)), {
      status: 503,
      body: { status: 'not_ready', checks: [{ name: 'started', ok: false, detail: 'the service is starting' }] },
    });
    const other = await fetch(`${url}/tenant`, { headers: { Authorization: 'Bearer whatever' } });
    t.is(other.status, 503);
    t.is(other.headers.get('retry-after'), '1');
    t.is(other.headers.get('content-type'), 'application/problem+json');
    t.like(await other.json(), { type: '/problems/service-unavailable', status: 503 });
  });
});
