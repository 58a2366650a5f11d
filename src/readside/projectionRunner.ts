// Keeps the read models (their own SQLite file, separate from any event store) up to date from
// a subscription to `$all`, and tells request handlers how far they are. The parts: group commit
// (commitPipeline.ts), applying a batch with its checkpoint in one transaction, so that a crash
// neither applies an event twice nor skips one, and setting aside what a projection cannot apply
// (applyBatch.ts), the file's own tables and rebuilds (readModelTables.ts), read-your-writes
// (checkpointWaiters.ts), and resubscribing with backoff after a stall (src/eventstore/resubscribe.ts).
import type { Projection } from '../../projections/projection.js';
import { quarantineAcknowledgmentsProjection } from '../../projections/quarantineAcknowledgments.js';
import { START, formatPosition, type EventStore, type Position, type Subscription } from '../eventstore/port.js';
import { Resubscribing } from '../eventstore/resubscribe.js';
import type { Logger } from '../log.js';
import { applyBatch, type Commit } from './applyBatch.js';
import { CheckpointWaiters } from './checkpointWaiters.js';
import { CommitPipeline } from './commitPipeline.js';
import { countQuarantine } from './quarantine.js';
import { prepareReadModels, resetReadModels } from './readModelTables.js';
import type { ReadModels, RunnerStatus } from './readModels.js';
import { Sqlite } from '../sqlite/connection.js';

export type Progress = (status: RunnerStatus) => void;

export class ProjectionRunner implements ReadModels {
  private checkpoint: Position;
  private caughtUp = false;
  private applied = 0;
  private commits = 0;
  private lastLagMs: number | null = null;
  private failing: string | null = null;
  private readonly loop: Resubscribing;
  private readonly waiters = new CheckpointWaiters();
  private caughtUpListeners: (() => void)[] = [];
  private readonly changeListeners: (() => void)[] = [];
  private progress: Progress | undefined;
  /** Settles the rebuild under way: caught up, or stalled. */
  private rebuilding: { readonly resolve: () => void; readonly reject: (err: unknown) => void } | undefined;

  private constructor(
    store: EventStore,
    private readonly writer: Sqlite,
    /** A second connection for queries, so they never run inside the writer's transactions. */
    readonly db: Sqlite,
    private readonly projections: readonly Projection[],
    private readonly log: Logger,
  ) {
    this.checkpoint = prepareReadModels(writer, projections, log);
    this.loop = new Resubscribing({
      subscribe: () => store.subscribeToAll({ after: this.checkpoint }),
      consume: (subscription, progressed) => this.consume(subscription, progressed),
      failed: (err, retryInMs) => this.stalled(err, retryInMs),
      backoffMs: { first: 250, max: 30_000 },
    });
  }

  static open(options: { store: EventStore; file: string; projections: readonly Projection[]; log: Logger }): ProjectionRunner {
    // Read models are rebuilt from the event store after a crash, so NORMAL durability suffices.
    const writer = Sqlite.open(options.file, { synchronous: 'NORMAL' });
    const reader = Sqlite.open(options.file, { synchronous: 'NORMAL' });
    // Readiness asks whether every quarantined event is acknowledged, whatever the read models.
    const projections = [...options.projections.filter((p) => p !== quarantineAcknowledgmentsProjection), quarantineAcknowledgmentsProjection];
    return new ProjectionRunner(options.store, writer, reader, projections, options.log);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
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
    resetReadModels(this.writer, this.projections);
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

  private async consume(subscription: Subscription, progressed: () => void): Promise<void> {
    const batches = new CommitPipeline(
      (batch) => {
        applyBatch(this.writer, this.projections, batch, (commit) => this.committed(commit));
        this.waiters.reached(this.checkpoint);
        this.changed();
        this.progress?.(this.status());
        progressed();
      },
      () => void subscription.stop(),
    );
    for await (const message of subscription) {
      if (message.kind === 'caughtUp') {
        await batches.drain();
        this.markCaughtUp();
      } else {
        await batches.push(message.event);
      }
    }
    await batches.drain();
  }

  /** Nothing of the failed batch was committed: the next subscription resumes at the checkpoint. */
  private stalled(err: unknown, retryInMs: number): void {
    this.failing = err instanceof Error ? err.message : String(err);
    this.log.error('projection stalled, retrying from checkpoint', { checkpoint: formatPosition(this.checkpoint), error: this.failing, retryInMs });
    this.rebuilding?.reject(err);
    this.changed();
  }

  /** The in-memory state after a transaction. */
  private committed({ events, last, setAside }: Commit): void {
    this.checkpoint = last.position;
    this.applied += events;
    this.commits++;
    this.lastLagMs = Math.max(0, Date.now() - last.created.getTime());
    this.failing = null;
    for (const { projection, reason } of setAside) {
      // The stream is left out: its name can hold an identifier handed to a wallet (a presentation's state).
      this.log.error('projection set aside an event it cannot apply', { projection, position: formatPosition(last.position), type: last.type, reason });
    }
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
}
