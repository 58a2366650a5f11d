// The console's sessions list: a page of GET /console/api/presentations over 100,000 sessions
// beside the same page over 100, on two services measured in the same run. Keyset pagination on
// the (tenant_id, created_at, state) index should make them cost the same: the figure is the
// ratio of their p99 latencies. The sessions are read-model rows inserted straight into the
// `presentations` table (making 100,000 real flows would take the bench far longer than a run may;
// the list reads only that table), spread over one day, a fifth of them in each outcome.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { encodeCursor } from '../projections/keysetPage.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { startTestService, type TestService } from '../test/support/service.js';
import type { Figure } from './report.js';
import { percentile } from './stats.js';

const LARGE = Number(process.env['BENCH_CONSOLE_SESSIONS'] ?? 100_000);
const SMALL = 100;
const OUTCOMES = ['OPEN', 'FULFILLED', 'REJECTED', 'EXPIRED', 'VERIFICATION_FAILED'];

interface Options {
  readonly dir: string;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly progress: (msg: string) => void;
}

/** `count` sessions of the bootstrap tenant, one per `spanMs / count`, newest last. */
const insertSessions = (s: TestService, count: number): void => {
  const db = s.service.runner.db;
  const start = Date.UTC(2026, 0, 1);
  const step = 86_400_000 / count;
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const created = new Date(start + Math.floor(i * step)).toISOString();
      const status = OUTCOMES[i % OUTCOMES.length]!;
      db.run(
        `INSERT INTO presentations (state, tenant_id, status, created_at, expires_at_ms, finished_at, flow_type) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [randomBytes(32).toString('base64url'), BOOTSTRAP_TENANT_ID, status, created, start + 4e12, status === 'OPEN' ? null : created, 'cross-device'],
      );
    }
  });
};

/** The cursor after the session in the middle of the list: a page deep inside it. */
const middleCursor = (s: TestService, count: number): string => {
  const row = s.service.runner.db.get<{ created_at: string; state: string }>(
    'SELECT created_at, state FROM presentations WHERE tenant_id = ? ORDER BY created_at DESC, state DESC LIMIT 1 OFFSET ?',
    [BOOTSTRAP_TENANT_ID, Math.floor(count / 2)],
  );
  if (!row) throw new Error('no middle session');
  return encodeCursor({ at: row.created_at, key: row.state });
};

const latencies = async (count: number, call: () => Promise<void>): Promise<number[]> => {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
  }
  return samples;
};

const page = (s: TestService, query: string) => async (): Promise<void> => {
  const response = await s.management(`/console/api/presentations?limit=25${query}`);
  const body = (await response.json()) as { items: unknown[] };
  if (response.status !== 200 || body.items.length === 0) throw new Error(`a page answered ${response.status} with ${body.items.length} sessions`);
};

export const consoleFigures = async (options: Options): Promise<Figure[]> => {
  const dirs = [await mkdtemp(join(options.dir, 'console-large-')), await mkdtemp(join(options.dir, 'console-small-'))];
  const large = await startTestService({ dataDir: dirs[0]! });
  const small = await startTestService({ dataDir: dirs[1]! });
  try {
    options.progress(`console: inserting ${LARGE} and ${SMALL} sessions into the read model`);
    insertSessions(large, LARGE);
    insertSessions(small, SMALL);
    const queries = {
      first: ['', ''],
      middle: [`&after=${middleCursor(large, LARGE)}`, `&after=${middleCursor(small, SMALL)}`],
      filtered: ['&status=REJECTED', '&status=REJECTED'],
    } as const;
    const count = Math.max(100, Math.round(100 * options.roundSeconds));
    const p99 = { first: { ours: [] as number[], reference: [] as number[] }, middle: { ours: [] as number[], reference: [] as number[] }, filtered: { ours: [] as number[], reference: [] as number[] } };
    for (const [onLarge, onSmall] of Object.values(queries)) {
      await latencies(30, page(large, onLarge));
      await latencies(30, page(small, onSmall));
    }
    for (let round = 0; round < options.rounds; round++) {
      options.progress(`console: round ${round + 1} of ${options.rounds}`);
      for (const [name, [onLarge, onSmall]] of Object.entries(queries) as [keyof typeof queries, readonly [string, string]][]) {
        // Alternating which goes first, so drift during the round does not favour one side.
        const pair = [
          async () => p99[name].ours.push(percentile(await latencies(count, page(large, onLarge)), 99)),
          async () => p99[name].reference.push(percentile(await latencies(count, page(small, onSmall)), 99)),
        ];
        for (const run of round % 2 === 0 ? pair : [...pair].reverse()) await run();
      }
    }
    const note = (what: string) =>
      `GET /console/api/presentations?limit=25${what}, one request at a time over loopback HTTP, p99 per round; ours over ${LARGE} sessions, reference the same page over ${SMALL}. Sessions are read-model rows inserted directly (not real flows).`;
    return [
      { name: `console sessions, first page p99 (${LARGE} vs ${SMALL})`, unit: 'ms', ours: p99.first.ours, reference: p99.first.reference, target: { atMost: 2 }, note: note('') },
      { name: `console sessions, middle page p99 (${LARGE} vs ${SMALL})`, unit: 'ms', ours: p99.middle.ours, reference: p99.middle.reference, target: { atMost: 2 }, note: note(' after the cursor of the middle session') },
      { name: `console sessions, one outcome p99 (${LARGE} vs ${SMALL})`, unit: 'ms', ours: p99.filtered.ours, reference: p99.filtered.reference, target: { atMost: 2 }, note: note('&status=REJECTED') },
    ];
  } finally {
    await large.stop();
    await small.stop();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
};
