// Resource API: creates per second, latest reads (p99) and search over 100k resources (p99),
// over loopback HTTP against the whole service on the embedded store. Each figure stands beside
// a reference measured in the same run on the same service: creates beside bare durable appends
// of the same event to the same store, reads and searches beside `GET /tenant` (authentication
// plus one indexed lookup: the floor of an authenticated read). The absolute targets
// (latest read p99 < 5 ms, search over 100k p99 < 50 ms) are reported in the notes.
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { isLeft } from 'fp-ts/lib/Either.js';
import { apiKeyStream } from '../streams/apiKey.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import type { EventStore } from '../src/eventstore/port.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { startTestService, type TestService } from '../test/support/service.js';
import type { Figure } from './report.js';
import { percentile, perSecond } from './stats.js';

const RESOURCES = Number(process.env['BENCH_RESOURCES'] ?? 100_000);
const IN_FLIGHT = 8;
const LATEST_P99_TARGET_MS = 5;
const SEARCH_P99_TARGET_MS = 50;

interface Options {
  readonly dir: string;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly progress: (msg: string) => void;
}

const keyCreated = (keyId: string, i: number) => ({
  id: randomUUID(),
  type: 'ApiKeyCreated',
  data: {
    keyId,
    tenantId: BOOTSTRAP_TENANT_ID,
    subjectId: randomUUID(),
    secretHash: randomBytes(32).toString('base64url'),
    scopes: ['resources'],
    expiration: null,
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    labels: { group: `g${i % 100}` },
    annotations: { n: String(i) },
  },
});

/** Fills the store with `count` API keys of the bootstrap tenant, straight into the event store. */
const fill = async (store: EventStore, count: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const keyId = randomUUID();
    const appended = await store.append(apiKeyStream(keyId), [keyCreated(keyId, i)], 'no_stream');
    if (isLeft(appended)) throw new Error('fill append refused');
    ids.push(keyId);
  }
  return ids;
};

/** Runs `count` calls of `call`, `inFlight` at a time; returns each call's milliseconds. */
const timed = async (count: number, call: (i: number) => Promise<void>, inFlight = IN_FLIGHT): Promise<{ latencies: number[]; perSecond: number }> => {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        await call(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, perSecond: perSecond(count, performance.now() - started) };
};

const expectStatus = async (response: Promise<Response>, status: number): Promise<void> => {
  const r = await response;
  await r.arrayBuffer();
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}`);
};

export const resourceFigures = async (options: Options): Promise<Figure[]> => {
  const dataDir = await mkdtemp(join(options.dir, 'resources-'));
  // First start: the bootstrap tenant and its key. Then the fill, straight into the store.
  let service: TestService = await startTestService({ dataDir });
  await service.stop();
  options.progress(`resources: filling ${RESOURCES} API keys`);
  const fillStore = await openSqliteEventStore({ file: join(dataDir, 'events.sqlite'), synchronous: 'NORMAL' });
  const ids = await fill(fillStore, RESOURCES);
  await fillStore.close();
  options.progress('resources: projecting them');
  service = await startTestService({ dataDir, env: { RESOURCE_RATE_LIMIT: '1000000' } });
  const json = { 'Content-Type': 'application/json' };
  const searches = [
    { filter: [{ labels: [{ operator: 'EQUAL', key: 'group', value: 'g7' }] }] },
    { filter: [{ data: { subject_id: { operator: 'EQUAL', value: randomUUID() } } }] },
    { sort: [{ field: 'CREATED_AT', order: 'DESC' }] },
    { filter: [{ created_at: { operator: 'BETWEEN', left: '2026-01-01T10:00:00Z', right: '2026-01-01T12:00:00Z' } }], sort: [{ field: 'ID', order: 'ASC' }] },
  ];
  const pick = (i: number): string => ids[(i * 7919) % ids.length]!;
  const calls = {
    create: () => expectStatus(service.management('/api-keys', { method: 'POST', headers: json, body: '{}' }), 201),
    latest: (i: number) => expectStatus(service.management(`/api-keys/${pick(i)}`), 200),
    search: (i: number) => expectStatus(service.management('/api-keys/search?limit=100', { method: 'POST', headers: json, body: JSON.stringify(searches[i % searches.length]) }), 200),
    floor: () => expectStatus(service.management('/tenant'), 200),
  };
  const reference = service.service.store;
  const bareAppend = async (): Promise<void> => {
    const keyId = randomUUID();
    const appended = await reference.append(apiKeyStream(keyId), [keyCreated(keyId, 0)], 'no_stream');
    if (isLeft(appended)) throw new Error('reference append refused');
  };
  const creates = { ours: [] as number[], reference: [] as number[] };
  const latestP99 = { ours: [] as number[], reference: [] as number[] };
  const searchP99 = { ours: [] as number[], reference: [] as number[] };
  const count = Math.max(200, Math.round(200 * options.roundSeconds));
  try {
    await timed(50, calls.create);
    await timed(200, calls.latest);
    await timed(40, calls.search);
    for (let round = 0; round < options.rounds; round++) {
      options.progress(`resources: round ${round + 1} of ${options.rounds}`);
      creates.ours.push((await timed(count, calls.create)).perSecond);
      creates.reference.push((await timed(count, bareAppend)).perSecond);
      // Latencies one request at a time: what a caller waits, not how long a queue is.
      const floor = percentile((await timed(count, calls.floor, 1)).latencies, 99);
      latestP99.ours.push(percentile((await timed(count, calls.latest, 1)).latencies, 99));
      latestP99.reference.push(floor);
      searchP99.ours.push(percentile((await timed(count, calls.search, 1)).latencies, 99));
      searchP99.reference.push(floor);
    }
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const worst = (samples: number[]): number => Math.max(...samples);
  const verdict = (p99: number, target: number): string => `worst round p99 ${p99.toFixed(1)} ms, target < ${target} ms: ${p99 < target ? 'ok' : 'MISSED'}`;
  return [
    {
      name: 'resource creates/s (POST /api-keys)',
      unit: 'creates/s',
      ours: creates.ours,
      reference: creates.reference,
      target: { atLeast: 0.25 },
      note: `${IN_FLIGHT} in flight over HTTP, each answered after its append and the read models have it; reference: the same event appended straight to the store (synchronous=FULL), ${IN_FLIGHT} in flight.`,
    },
    {
      name: `latest read p99 (${RESOURCES} resources)`,
      unit: 'ms',
      ours: latestP99.ours,
      reference: latestP99.reference,
      target: { atMost: 3 },
      note: `GET /api-keys/{id}, one at a time; reference GET /tenant. Absolute: ${verdict(worst(latestP99.ours), LATEST_P99_TARGET_MS)}.`,
    },
    {
      name: `search p99 (${RESOURCES} resources)`,
      unit: 'ms',
      ours: searchP99.ours,
      reference: searchP99.reference,
      target: { atMost: 20 },
      note: `POST /api-keys/search?limit=100 cycling a label filter (1% match), a data.subject_id filter (none), newest first, and a 2 h created_at range by id; one at a time; reference GET /tenant. Absolute: ${verdict(worst(searchP99.ours), SEARCH_P99_TARGET_MS)}.`,
    },
  ];
};
