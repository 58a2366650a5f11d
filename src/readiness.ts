// Whether this instance should take traffic (`GET /health/ready` on both listeners), as named
// checks: the store answers, the read models are caught up within READINESS_MAX_LAG_MS, and every
// quarantined event is acknowledged. Features add their own checks (Feature.readinessChecks).
// Probes are unauthenticated, so what a failing check says is fixed text and counts: never an
// error message (an EventStoreDB client's may name its host or credentials) or a stream name.
import { comparePositions, parsePosition, START, type EventStore, type RecordedEvent } from './eventstore/port.js';
import type { Logger } from './log.js';
import type { ReadModels } from './readside/readModels.js';

export interface ReadinessCheck {
  readonly name: string;
  /** Why the instance should not take traffic, or undefined when this check passes. */
  readonly failure: () => Promise<string | undefined>;
}

export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface Readiness {
  readonly ready: boolean;
  readonly checks: readonly CheckResult[];
}

/** How long a probe waits for the store: under the 1 s a Kubernetes probe waits by default. */
export const STORE_PROBE_TIMEOUT_MS = 800;

class StoreTimeout extends Error {}

const withinProbeTimeout = async <T>(work: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout()), STORE_PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

const newestEvent = async (store: EventStore): Promise<RecordedEvent | undefined> =>
  (await withinProbeTimeout(store.readAll({ direction: 'backwards', maxCount: 1 })))[0];

const failed = (err: unknown, what: string): string =>
  err instanceof StoreTimeout ? `${what}: the event store did not answer within ${STORE_PROBE_TIMEOUT_MS} ms` : `${what}: reading the event store failed`;

export const storeCheck = (store: EventStore): ReadinessCheck => ({
  name: 'store',
  failure: () => newestEvent(store).then(
    () => undefined,
    (err: unknown) => failed(err, 'unreachable'),
  ),
});

/**
 * Caught up within `maxLagMs`: the oldest event not yet applied was recorded less than that long
 * ago (by the store's clock). Before the first catch-up after a start or rebuild, and while
 * projecting is stalled, the read models are behind whatever the store holds.
 */
export const projectionsCheck = (runner: ReadModels, store: EventStore, maxLagMs: number): ReadinessCheck => ({
  name: 'projections',
  failure: async () => {
    const status = runner.status();
    if (status.failing !== null) return 'stalled: applying events fails for a reason other than the events (see the log); retrying';
    if (!status.caughtUp) return 'catching up with the event store';
    const checkpoint = parsePosition(status.checkpoint) ?? START;
    try {
      const head = await newestEvent(store);
      if (!head || comparePositions(head.position, checkpoint) <= 0) return undefined;
      const next = (await withinProbeTimeout(store.readAll({ fromPosition: checkpoint, maxCount: 2 }))).find((e) => comparePositions(e.position, checkpoint) > 0) ?? head;
      const lagMs = Date.now() - next.created.getTime();
      return lagMs >= maxLagMs ? `behind: the oldest event not yet applied was recorded ${lagMs} ms ago (bound ${maxLagMs} ms)` : undefined;
    } catch (err) {
      return failed(err, 'lag unknown');
    }
  },
});

export const quarantineCheck = (runner: ReadModels): ReadinessCheck => ({
  name: 'quarantine',
  failure: async () => {
    const { unacknowledged } = runner.status().quarantine;
    return unacknowledged === 0 ? undefined : `${unacknowledged} quarantined event(s) not acknowledged`;
  },
});

const evaluate = async (checks: readonly ReadinessCheck[], log: Logger): Promise<Readiness> => {
  const results = await Promise.all(
    checks.map(async ({ name, failure }): Promise<CheckResult> => {
      const detail = await failure().catch((err: unknown) => {
        log.error('readiness check failed to run', { check: name, err });
        return 'the check could not run (see the log)';
      });
      return detail === undefined ? { name, ok: true } : { name, ok: false, detail };
    }),
  );
  return { ready: results.every((r) => r.ok), checks: results };
};

/**
 * The readiness of whatever `checks` returns at the time of the probe. Probes arriving while an
 * evaluation runs share it, so a flood of unauthenticated probes costs one store read at a time.
 */
export const readiness = (checks: () => readonly ReadinessCheck[], log: Logger): (() => Promise<Readiness>) => {
  let running: Promise<Readiness> | undefined;
  return () =>
    (running ??= evaluate(checks(), log).finally(() => {
      running = undefined;
    }));
};
