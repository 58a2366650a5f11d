// `npm run bench`: throughput of the embedded event store and the projection runner, each beside
// the raw SQLite figure for the same work measured in the same run, through the same driver
// wrapper (src/sqlite/connection.ts), with the same PRAGMAs and payloads. Ratios are what the targets are
// about: absolute numbers drift between machines.
//
// Fairness: ours and the reference are interleaved after a warm-up (appends in alternating blocks
// within a round, rebuild rounds alternating which goes first), each round on fresh files, and
// figures are medians of the rounds. Bounded to about a minute on a 2-core box: append rounds are
// sized from a calibration run.
//
// Adding a figure: measure samples for ours and a reference in the same run, push a `Figure`
// (bench/report.ts) with its target; the table and the final JSON line pick it up.
//
// Knobs (environment): BENCH_ROUNDS (default 5), BENCH_ROUND_SECONDS (timed seconds per side per
// append round, default 1.5), BENCH_REBUILD_EVENTS (default 30000), BENCH_SYNC (append figures
// to run, default FULL,NORMAL), BENCH_STRICT=1 (exit 1 when a target is missed), BENCH_ONLY
// (comma-separated groups: appends, rebuild, callbacks, verification, verification-cpu, keystore,
// presentation-verification, mdoc, trust-resolution, issuance, issuance-cpu, issuance-authorization-code,
// resources, console, workers, latency, tenants (100 tenants, each its own issuer and verifier,
// against one: bench/tenants.ts), and soak, which runs only when named),
// BENCH_CPU_FLOWS (flows per round of the *-cpu groups, default 300), BENCH_LONG_FLOWS (flows
// of their long run, default 3000), BENCH_PROFILE_DIR (write the *-cpu groups' service CPU
// profile there), BENCH_WORKERS_IN_FLIGHT (flows in flight of the workers group, default 8),
// BENCH_LATENCY_SECONDS (the latency group's run, default 20), BENCH_SOAK_SECONDS (the soak's
// length, default 600).
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isLeft } from 'fp-ts/lib/Either.js';
import { listApiKeys } from '../projections/apiKeys.js';
import { allProjections } from '../projections/index.js';
import { countTenants } from '../projections/tenants.js';
import type { EventStore } from '../src/eventstore/port.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { silentLogger } from '../src/log.js';
import { ProjectionRunner } from '../src/readside/projectionRunner.js';
import { Sqlite } from '../src/sqlite/connection.js';
import { callbackFigures } from './callbacks.js';
import { commandTraffic, history, type PlannedAppend } from './fixtures.js';
import { authorizationCodeFigures } from './authorizationCode.js';
import { issuanceCpuFigures, issuanceFigures } from './issuance.js';
import { keystoreFigures } from './keystore.js';
import { resourceFigures } from './resources.js';
import { consoleFigures } from './console.js';
import { printJson, printTable, type Figure } from './report.js';
import { verificationCpuFigures, verificationFigures } from './verification.js';
import { presentationVerificationFigures } from './presentationVerification.js';
import { mdocFigures } from './mdoc.js';
import { trustResolutionFigures } from './trustResolution.js';
import { latencyFigures, soakFigures } from './soak.js';
import { workersFigures } from './workers.js';
import { tenantsFigures } from './tenants.js';
import { perSecond } from './stats.js';
import { stopCheckingAnswers } from '../test/support/openapi.js';

type Sync = 'FULL' | 'NORMAL';

const envInt = (name: string, fallback: number): number => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const ROUNDS = envInt('BENCH_ROUNDS', 5);
const ROUND_SECONDS = envInt('BENCH_ROUND_SECONDS', 1.5);
const CPU_FLOWS = Math.round(envInt('BENCH_CPU_FLOWS', 300));
const LONG_FLOWS = Math.round(envInt('BENCH_LONG_FLOWS', 3000));
const LATENCY_SECONDS = envInt('BENCH_LATENCY_SECONDS', 20);
const SOAK_SECONDS = envInt('BENCH_SOAK_SECONDS', 600);
const REBUILD_EVENTS = Math.round(envInt('BENCH_REBUILD_EVENTS', 30_000));
const SYNC_MODES = (process.env['BENCH_SYNC'] ?? 'FULL,NORMAL')
  .split(',')
  .map((s) => s.trim().toUpperCase())
  .filter((s): s is Sync => s === 'FULL' || s === 'NORMAL');
/** Rows per transaction of the raw batched-insert reference: the runner's catch-up batch. */
const REFERENCE_BATCH = 1000;

const progress = (msg: string): void => {
  process.stderr.write(`bench: ${msg}\n`);
};

let dir = '';
let fileCounter = 0;
const freshFile = (label: string): string => join(dir, `${label}-${fileCounter++}.sqlite`);
/** Deletes a closed database with its WAL and shared-memory files, so rounds do not pile up data. */
const removeFile = (file: string): Promise<void[]> =>
  Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${file}${suffix}`, { force: true })));

const time = async (work: () => Promise<void>): Promise<number> => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

const mustAppend = async (store: EventStore, a: PlannedAppend): Promise<void> => {
  const result = await store.append(a.stream, [a.event], a.expected);
  if (isLeft(result)) throw new Error(`bench append refused: ${JSON.stringify(result.left)}`);
};

// ---------------------------------------------------------------------------------------------
// 1. Single-event appends

/** Appends in blocks alternating between the two sides of a round, so drift hits both alike. */
const APPEND_BLOCK = 200;
/**
 * Untimed appends on each fresh file before a round is timed. Until SQLite's first checkpoint
 * (at 1000 WAL pages) the WAL file grows with every commit, and with synchronous=FULL a commit
 * that grows a file costs a good deal more than one that rewrites recycled WAL space; the plain
 * table writes ~1.2 pages a commit, so it needs ~900 commits to get there. A long-lived store
 * runs in the recycled state, so both sides are measured in it.
 */
const APPEND_WARMUP = 1200;

interface AppendSide {
  /** Runs items [from, to) of its plan, each its own awaited call. */
  readonly run: (from: number, to: number) => Promise<void>;
  readonly close: () => Promise<void>;
  ms: number;
}

/** Our store: each append its own call, awaited before the next, exact expectations. */
const oursSide = async (sync: Sync, plan: readonly PlannedAppend[]): Promise<AppendSide> => {
  const file = freshFile(`events-${sync}`);
  const store = await openSqliteEventStore({ file, synchronous: sync });
  return {
    ms: 0,
    run: async (from, to) => {
      for (let i = from; i < to; i++) await mustAppend(store, plan[i]!);
    },
    close: async () => {
      await store.close();
      await removeFile(file);
    },
  };
};

/** The same payloads as plain single-row INSERTs, one statement (one commit) per await. */
const referenceSide = async (sync: Sync, payloads: readonly string[]): Promise<AppendSide> => {
  const file = freshFile(`raw-${sync}`);
  const db = Sqlite.open(file, { synchronous: sync });
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT)');
  return {
    ms: 0,
    run: async (from, to) => {
      for (let i = from; i < to; i++) await db.run('INSERT INTO t (payload) VALUES (?)', [payloads[i]!]);
    },
    close: async () => {
      db.close();
      await removeFile(file);
    },
  };
};

/** One round on fresh files: both sides do `count` appends, in alternating blocks. Returns appends/s. */
const appendRound = async (sync: Sync, count: number, round: number): Promise<{ ours: number; reference: number }> => {
  const total = APPEND_WARMUP + count;
  const plan = commandTraffic(total);
  const ours = await oursSide(sync, plan);
  const reference = await referenceSide(sync, plan.map((a) => JSON.stringify(a.event.data)));
  try {
    await ours.run(0, APPEND_WARMUP);
    await reference.run(0, APPEND_WARMUP);
    for (let from = APPEND_WARMUP, block = 0; from < total; from += APPEND_BLOCK, block++) {
      const to = Math.min(total, from + APPEND_BLOCK);
      const order = (block + round) % 2 === 0 ? [ours, reference] : [reference, ours];
      for (const side of order) side.ms += await time(() => side.run(from, to));
    }
    return { ours: perSecond(count, ours.ms), reference: perSecond(count, reference.ms) };
  } finally {
    await ours.close();
    await reference.close();
  }
};

const appendFigure = async (sync: Sync): Promise<Figure> => {
  // Warm-up and calibration: size the rounds so each side takes about ROUND_SECONDS.
  const warm = await appendRound(sync, 600, 0);
  const count = Math.max(1000, Math.min(50_000, Math.round(warm.reference * ROUND_SECONDS)));
  progress(`appends ${sync}: ${ROUNDS} rounds of ${count} appends a side (calibrated at ~${Math.round(warm.reference)}/s raw)`);
  const ours: number[] = [];
  const reference: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const r = await appendRound(sync, count, round);
    ours.push(r.ours);
    reference.push(r.reference);
  }
  const payloadBytes = JSON.stringify(commandTraffic(1)[0]!.event.data).length;
  return {
    name: `single-event appends, ${sync}`,
    unit: 'appends/s',
    ours,
    reference,
    target: { atLeast: 0.8 },
    note:
      `ours: store.append(stream, [event], expected) awaited one by one over 16 short streams in flight ` +
      `(4 events each: no_stream, then exact revisions); reference: INSERT INTO t (payload) awaited one by one; ` +
      `${count} timed a side per round (after ${APPEND_WARMUP} untimed) in alternating blocks of ${APPEND_BLOCK}, ~${payloadBytes}-byte JSON payload, WAL, synchronous=${sync}` +
      (sync === 'FULL' ? ' (ours: commits at NORMAL and waits for an fdatasync of the WAL on the thread pool; the reference fsyncs inside its commit, on the main thread).' : '.'),
  };
};

// ---------------------------------------------------------------------------------------------
// 2. Projection rebuild

/** Fills a store with the planned history. Untimed; each stream's events stay in order. */
const fillStore = async (store: EventStore, plan: readonly PlannedAppend[]): Promise<void> => {
  const CHUNK = 256;
  for (let i = 0; i < plan.length; i += CHUNK) {
    const chunk = plan.slice(i, i + CHUNK);
    // New streams may go in parallel (one statement each); appends to existing streams after them.
    await Promise.all(chunk.filter((a) => a.expected === 'no_stream').map((a) => mustAppend(store, a)));
    await Promise.all(chunk.filter((a) => a.expected !== 'no_stream').map((a) => mustAppend(store, a)));
  }
};

const rebuildOurs = async (store: EventStore, expected: { tenants: number; keys: number }): Promise<number> => {
  const file = freshFile('readmodels');
  const runner = ProjectionRunner.open({
    store,
    file,
    projections: allProjections,
    log: silentLogger,
  });
  try {
    let applied = 0;
    const ms = await time(() => runner.rebuild((s) => (applied = s.applied)));
    // The projections did real work: every row is there.
    const tenants = countTenants(runner.db);
    const keys = listApiKeys(runner.db, {}).length;
    if (tenants !== expected.tenants || keys !== expected.keys) {
      throw new Error(`rebuild incomplete: ${tenants}/${expected.tenants} tenants, ${keys}/${expected.keys} keys`);
    }
    return perSecond(applied, ms);
  } finally {
    await runner.close();
    await removeFile(file);
  }
};

/** The same number of rows (the events' data as payload) in transactions of 1000 inserts. */
/**
 * The same writing as the rebuild, raw: as many single-row INSERTs into a plain table as the
 * projections make SQL changes, through the same driver wrapper, one awaited statement after
 * another as the runner applies its changes, REFERENCE_BATCH rows per transaction. Returns events
 * per second, so it is comparable with ours.
 */
const rebuildReference = async (payloads: readonly string[], rows: number): Promise<number> => {
  // The runner's read-model file is opened with synchronous=NORMAL; so is this one.
  const file = freshFile('raw-batched');
  const db = Sqlite.open(file, { synchronous: 'NORMAL' });
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT)');
    const ms = await time(async () => {
      for (let i = 0; i < rows; i += REFERENCE_BATCH) {
        db.transaction(() => {
          for (let j = i; j < Math.min(i + REFERENCE_BATCH, rows); j++) {
            db.run('INSERT INTO t (payload) VALUES (?)', [payloads[j % payloads.length]!]);
          }
        });
      }
    });
    return perSecond(payloads.length, ms);
  } finally {
    db.close();
    await removeFile(file);
  }
};

const rebuildFigure = async (): Promise<Figure> => {
  const plan = history(REBUILD_EVENTS);
  const expected = {
    tenants: plan.filter((a) => a.event.type === 'TenantCreated').length,
    keys: plan.filter((a) => a.event.type === 'ApiKeyCreated').length,
  };
  const payloads = plan.map((a) => JSON.stringify(a.event.data));
  progress(`rebuild: filling a store with ${plan.length} events`);
  const store = await openSqliteEventStore({ file: freshFile('history'), synchronous: 'NORMAL' });
  try {
    const fillMs = await time(() => fillStore(store, plan));
    progress(`rebuild: filled in ${Math.round(fillMs)} ms; warm-up, then ${ROUNDS} rounds`);
    // How much writing the projections do per event: the reference writes one row per event.
    const changes = (await store.readAll()).reduce(
      (n, event) => n + allProjections.reduce((m, p) => m + p.apply(event).length, 0),
      0,
    );
    await rebuildOurs(store, expected);
    await rebuildReference(payloads, changes);
    const ours: number[] = [];
    const reference: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        ours.push(await rebuildOurs(store, expected));
        reference.push(await rebuildReference(payloads, changes));
      } else {
        reference.push(await rebuildReference(payloads, changes));
        ours.push(await rebuildOurs(store, expected));
      }
    }
    return {
      name: 'projection rebuild',
      unit: 'events/s',
      ours,
      reference,
      target: { atLeast: 0.5 },
      note:
        `ours: runner.rebuild() of all ${allProjections.length} projections (${allProjections.map((p) => p.name).join(', ')}) ` +
        `on a fresh read-model file from a store of ${plan.length} events ` +
        `(${expected.tenants} TenantCreated, ${expected.keys} ApiKeyCreated, ${plan.length - expected.tenants - expected.keys} ApiKeyDeleted); ` +
        `the projections make ${changes} SQL changes for them (${(changes / plan.length).toFixed(2)} an event); ` +
        `reference: as many single-row INSERTs into a plain table (${changes}), ${REFERENCE_BATCH} per transaction, one awaited statement after another as the runner applies them, WAL, synchronous=NORMAL; both as events/s.`,
    };
  } finally {
    await store.close();
  }
};

// ---------------------------------------------------------------------------------------------

const main = async (): Promise<void> => {
  // The flows run through the test support; its OpenAPI check of every answer is not the service's work.
  stopCheckingAnswers();
  const started = performance.now();
  dir = await mkdtemp(join(tmpdir(), 'bench-'));
  process.once('SIGINT', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    const probe = Sqlite.open(':memory:', { synchronous: 'FULL' });
    const sqliteVersion = (await probe.get<{ v: string }>('SELECT sqlite_version() AS v'))?.v ?? 'unknown';
    await probe.close();
    const environment = {
      node: process.version,
      sqlite: sqliteVersion,
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      tmpdir: tmpdir(),
    };
    progress(`node ${environment.node}, sqlite ${sqliteVersion}, ${environment.cpus} x ${environment.cpu}, files in ${dir}`);

    const common = { dir, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, progress, cpuFlows: CPU_FLOWS, longFlows: LONG_FLOWS };
    const groups: Record<string, () => Promise<Figure[]>> = {
      appends: async () => {
        const figures: Figure[] = [];
        for (const sync of SYNC_MODES) figures.push(await appendFigure(sync));
        return figures;
      },
      rebuild: async () => [await rebuildFigure()],
      callbacks: () => callbackFigures(common),
      verification: () => verificationFigures(common),
      'verification-cpu': () => verificationCpuFigures(common),
      'presentation-verification': () => presentationVerificationFigures(common),
      mdoc: () => mdocFigures(common),
      'trust-resolution': () => trustResolutionFigures(common),
      issuance: () => issuanceFigures(common),
      'issuance-cpu': () => issuanceCpuFigures(common),
      'issuance-authorization-code': () => authorizationCodeFigures(common),
      keystore: () => keystoreFigures(common),
      resources: () => resourceFigures(common),
      console: () => consoleFigures(common),
      workers: () => workersFigures(common),
      tenants: () => tenantsFigures(common),
      latency: () => latencyFigures({ ...common, latencySeconds: LATENCY_SECONDS, soakSeconds: SOAK_SECONDS }),
      soak: () => soakFigures({ ...common, latencySeconds: LATENCY_SECONDS, soakSeconds: SOAK_SECONDS }),
    };
    /** Run only when named in BENCH_ONLY: ten minutes is more than a default run should take. */
    const OPT_IN = ['soak'];
    const only = process.env['BENCH_ONLY']?.split(',').map((g) => g.trim()).filter((g) => g !== '');
    const unknown = (only ?? []).filter((g) => !(g in groups));
    if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown group(s) ${unknown.join(', ')}; groups: ${Object.keys(groups).join(', ')}`);
    const figures: Figure[] = [];
    for (const [name, run] of Object.entries(groups)) if (only ? only.includes(name) : !OPT_IN.includes(name)) figures.push(...(await run()));

    const seconds = Math.round((performance.now() - started) / 100) / 10;
    console.log('');
    const results = printTable(figures);
    console.log(`(${seconds} s in all)`);
    printJson(results, { environment, seconds });
    if (process.env['BENCH_STRICT'] === '1' && results.some((r) => !r.pass)) process.exitCode = 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
