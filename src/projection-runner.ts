// Keeps the read models (their own SQLite file, separate from any event store) up to date from
// a subscription to `$all`. Each batch of events and the checkpoint after it commit in one
// transaction, so a crash can neither apply an event twice nor skip one. The read models are
// disposable: a missing file or a changed projection schema means a rebuild from the start.
//
// An event a projection cannot apply must not stop every reader behind it: when a batch fails for
// a reason that lies with its events (src/projection-failure.ts), each of its events is applied
// on its own, and a projection that keeps failing on one sets that event aside (src/quarantine.ts)
// and goes on. A failure of the database or the machine stalls instead, retrying from the
// checkpoint: nothing is set aside for it.
import type { Projection, SqlChange } from '../projections/projection.js';
import { quarantineAcknowledgmentsProjection } from '../projections/quarantineAcknowledgments.js';
import { START, formatPosition, parsePosition, type EventStore, type Position, type RecordedEvent, type Subscription } from './eventstore/port.js';
import type { Logger } from './log.js';
import { isEnvironmental, reasonOf } from './projection-failure.js';
import { clearQuarantine, countQuarantine, QUARANTINE_SCHEMA, recordQuarantine } from './quarantine.js';
import { CheckpointWaiters, type ReadModels, type RunnerStatus } from './readModels.js';
import { Sqlite } from './sqlite.js';

export type { RunnerStatus } from './readModels.js';

/** The most events applied in one transaction; reading waits while this many are queued. */
const MAX_BATCH = 1000;

/** Times a projection tries an event on its own before setting it aside. */
const ATTEMPTS = 3;

const META = `
CREATE TABLE IF NOT EXISTS projection_checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), position TEXT NOT NULL);
INSERT OR IGNORE INTO projection_checkpoint (id, position) VALUES (1, '0/0');
CREATE TABLE IF NOT EXISTS projection_schema (name TEXT PRIMARY KEY, schema TEXT NOT NULL, tables TEXT NOT NULL);
${QUARANTINE_SCHEMA}`;

export type Progress = (status: RunnerStatus) => void;

export class ProjectionRunner implements ReadModels {
  private checkpoint: Position = START;
  private caughtUp = false;
  private applied = 0;
  private commits = 0;
  private lastLagMs: number | null = null;
  private failing: string | null = null;
  private running: Promise<void> | undefined;
  private subscription: Subscription | undefined;
  private stopping = false;
  private readonly waiters = new CheckpointWaiters();
  private caughtUpListeners: (() => void)[] = [];
  private readonly changeListeners: (() => void)[] = [];
  private progress: Progress | undefined;
  /** Settles the rebuild under way: caught up, or stalled. */
  private rebuilding: { readonly resolve: () => void; readonly reject: (err: unknown) => void } | undefined;

  private constructor(
    private readonly store: EventStore,
    private readonly writer: Sqlite,
    /** A second connection for queries, so they never run inside the writer's transactions. */
    readonly db: Sqlite,
    private readonly projections: readonly Projection[],
    private readonly log: Logger,
  ) {}

  static async open(options: {
    store: EventStore;
    file: string;
    projections: readonly Projection[];
    log: Logger;
  }): Promise<ProjectionRunner> {
    // Read models are rebuilt from the event store after a crash, so NORMAL durability suffices.
    const writer = Sqlite.open(options.file, { synchronous: 'NORMAL' });
    writer.exec(META);
    const reader = Sqlite.open(options.file, { synchronous: 'NORMAL' });
    // Readiness asks whether every quarantined event is acknowledged, whatever the read models.
    const projections = [...options.projections.filter((p) => p !== quarantineAcknowledgmentsProjection), quarantineAcknowledgmentsProjection];
    const runner = new ProjectionRunner(options.store, writer, reader, projections, options.log);
    await runner.prepareSchema();
    return runner;
  }

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.subscription?.stop();
    await this.running;
    this.running = undefined;
  }

  async close(): Promise<void> {
    await this.stop();
    this.waiters.abandon();
    this.db.close();
    this.writer.close();
  }

  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    return this.waiters.wait(this.checkpoint, position, timeoutMs);
  }

  whenCaughtUp(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpListeners.push(resolve));
  }

  /** Calls `listener` after each commit, on catching up and when projecting stalls: whenever `status()` may have changed. */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  status(): RunnerStatus {
    return {
      checkpoint: formatPosition(this.checkpoint),
      caughtUp: this.caughtUp,
      applied: this.applied,
      commits: this.commits,
      lastLagMs: this.lastLagMs,
      failing: this.failing,
      quarantine: countQuarantine(this.db),
    };
  }

  /**
   * Drops every read model and replays `$all` from the start; resolves when caught up again and
   * rejects with the failure when projecting stalls (the runner keeps retrying until stopped).
   */
  async rebuild(progress?: Progress): Promise<void> {
    await this.stop();
    this.writer.transaction(() => {
      this.dropTables(this.projections.flatMap((p) => p.tables));
      this.createTables();
    });
    this.checkpoint = START;
    this.caughtUp = false;
    this.progress = progress;
    try {
      await new Promise<void>((resolve, reject) => {
        this.rebuilding = { resolve, reject };
        this.start();
      });
    } finally {
      this.rebuilding = undefined;
      this.progress = undefined;
    }
  }

  private async run(): Promise<void> {
    let backoffMs = 250;
    while (!this.stopping) {
      const subscription = this.store.subscribeToAll({ after: this.checkpoint });
      this.subscription = subscription;
      const batches = new CommitPipeline(
        (batch) => this.commit(batch),
        () => void subscription.stop(),
      );
      try {
        for await (const message of subscription) {
          if (message.kind === 'caughtUp') {
            await batches.drain();
            this.markCaughtUp();
          } else {
            await batches.push(message.event);
          }
        }
        await batches.drain();
        backoffMs = 250;
      } catch (err) {
        // Nothing of the failed batch was committed: the next subscription resumes at the checkpoint.
        this.failing = err instanceof Error ? err.message : String(err);
        this.log.error('projection stalled, retrying from checkpoint', {
          checkpoint: formatPosition(this.checkpoint),
          error: this.failing,
          retryInMs: backoffMs,
        });
        this.rebuilding?.reject(err);
        this.changed();
        await subscription.stop();
        if (!this.stopping) await new Promise((resolve) => setTimeout(resolve, backoffMs));
        backoffMs = Math.min(backoffMs * 2, 30_000);
      }
    }
  }

  private async commit(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1];
    if (!last) return;
    try {
      this.writer.transaction(() => {
        for (const event of batch) for (const projection of this.projections) this.runChanges(projection.apply(event));
        this.saveCheckpoint(last.position);
      });
      this.committed(batch.length, last);
    } catch (err) {
      if (isEnvironmental(err)) throw err;
      // Some event of the batch fails: each goes on its own, so that the others are still applied.
      for (const event of batch) this.commitAlone(event);
    }
    this.waiters.reached(this.checkpoint);
    this.changed();
    this.progress?.(this.status());
  }

  /**
   * Applies one event in its own transaction, each projection in a savepoint: a projection that
   * fails on it ATTEMPTS times sets it aside, the others apply it. A failure of the environment
   * rolls the whole transaction back and is thrown: the runner stalls.
   */
  private commitAlone(event: RecordedEvent): void {
    const quarantined = this.writer.transaction(() => {
      const failed = this.projections.flatMap((projection) => {
        const failure = this.applyWithRetries(projection, event);
        return failure === undefined ? [] : [{ projection: projection.name, reason: reasonOf(failure) }];
      });
      for (const { projection, reason } of failed) recordQuarantine(this.writer, projection, event, reason, new Date());
      this.saveCheckpoint(event.position);
      return failed;
    });
    this.committed(1, event);
    for (const { projection, reason } of quarantined) {
      // The stream is left out: its name can hold an identifier handed to a wallet (a presentation's state).
      this.log.error('projection set aside an event it cannot apply', { projection, position: formatPosition(event.position), type: event.type, reason });
    }
  }

  /** Undefined once `projection` has applied `event`; else its last failure. */
  private applyWithRetries(projection: Projection, event: RecordedEvent): unknown {
    let failure: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        this.writer.savepoint(() => this.runChanges(projection.apply(event)));
        return undefined;
      } catch (err) {
        if (isEnvironmental(err)) throw err;
        failure = err;
      }
    }
    return failure;
  }

  private runChanges(changes: readonly SqlChange[]): void {
    for (const change of changes) this.writer.run(change.sql, change.params);
  }

  private saveCheckpoint(position: Position): void {
    this.writer.run('UPDATE projection_checkpoint SET position = ? WHERE id = 1', [formatPosition(position)]);
  }

  /** The in-memory state after a transaction that committed `count` events up to `last`. */
  private committed(count: number, last: RecordedEvent): void {
    this.checkpoint = last.position;
    this.applied += count;
    this.commits++;
    this.lastLagMs = Math.max(0, Date.now() - last.created.getTime());
    this.failing = null;
  }

  private markCaughtUp(): void {
    this.caughtUp = true;
    for (const listener of this.caughtUpListeners.splice(0)) listener();
    this.changed();
    this.rebuilding?.resolve();
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /** Starts over when the stored schemas differ from the projections' (added, removed, changed). */
  private async prepareSchema(): Promise<void> {
    const stored = this.writer.all<{ name: string; schema: string; tables: string }>('SELECT * FROM projection_schema');
    const same =
      stored.length === this.projections.length &&
      this.projections.every((p) => stored.some((s) => s.name === p.name && s.schema === p.schema));
    if (same) {
      const row = this.writer.get<{ position: string }>('SELECT position FROM projection_checkpoint WHERE id = 1');
      this.checkpoint = parsePosition(row?.position ?? '') ?? START;
      return;
    }
    if (stored.length > 0) this.log.info('projection schemas changed, rebuilding read models', {});
    this.writer.transaction(() => {
      this.dropTables([...stored.flatMap((s) => JSON.parse(s.tables) as string[]), ...this.projections.flatMap((p) => p.tables)]);
      this.createTables();
    });
    this.checkpoint = START;
  }

  private dropTables(tables: readonly string[]): void {
    for (const table of new Set(tables)) this.writer.exec(`DROP TABLE IF EXISTS "${table.replaceAll('"', '')}"`);
  }

  private createTables(): void {
    this.writer.run('DELETE FROM projection_schema');
    clearQuarantine(this.writer);
    for (const p of this.projections) {
      this.writer.exec(p.schema);
      this.writer.run('INSERT INTO projection_schema (name, schema, tables) VALUES (?, ?, ?)', [p.name, p.schema, JSON.stringify(p.tables)]);
    }
    this.writer.run("UPDATE projection_checkpoint SET position = '0/0' WHERE id = 1");
  }
}

/**
 * Commits events in the background, in order: the events handed over in one turn of the event
 * loop, or while a batch commits, make one batch (group commit). Under load, or while catching
 * up, a transaction carries as many events as arrived, up to MAX_BATCH. After a failed
 * commit nothing more is committed and `onFailure` runs (it stops the subscription); `push` and
 * `drain` then throw the failure.
 */
class CommitPipeline {
  private pending: RecordedEvent[] = [];
  private committing: Promise<void> | undefined;
  private failure: { readonly error: unknown } | undefined;

  constructor(
    private readonly commit: (batch: readonly RecordedEvent[]) => Promise<void>,
    private readonly onFailure: () => void,
  ) {}

  /** Queues an event for the next batch; waits only while a full batch is queued. */
  async push(event: RecordedEvent): Promise<void> {
    this.throwIfFailed();
    this.pending.push(event);
    const flushed = this.flush();
    if (this.pending.length >= MAX_BATCH) await flushed;
    this.throwIfFailed();
  }

  /** Resolves once every queued event is committed. */
  async drain(): Promise<void> {
    await this.flush();
    this.throwIfFailed();
  }

  /** Never rejects: a failure is kept for `push` and `drain` to throw. */
  private flush(): Promise<void> {
    if (this.committing === undefined && this.pending.length > 0 && !this.failure) this.committing = this.commitPending();
    return this.committing ?? Promise.resolve();
  }

  /**
   * Commits until nothing is queued. `committing` is cleared in the same step that finds the
   * queue empty, so an event queued at any moment is either in a batch still to come or starts
   * the next run.
   */
  private async commitPending(): Promise<void> {
    try {
      // The driver is synchronous: without this turn of the event loop, each event would commit
      // alone before the subscription handed over the next one it had already read.
      await new Promise((resolve) => setImmediate(resolve));
      do await this.commit(this.pending.splice(0, MAX_BATCH));
      while (this.pending.length > 0);
    } catch (error) {
      this.pending = [];
      this.failure = { error };
      this.onFailure();
    }
    this.committing = undefined;
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
