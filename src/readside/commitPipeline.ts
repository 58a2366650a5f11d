// Group commit for the projection runner: the events a subscription hands over in one turn of the
// event loop, or while a batch commits, go in one transaction. Catching up, or under load, a
// transaction carries as many events as arrived, up to MAX_BATCH.
import type { RecordedEvent } from '../eventstore/port.js';

/** The most events applied in one transaction; reading waits while this many are queued. */
const MAX_BATCH = 1000;

/**
 * Commits events in the background, in order. After a failed commit nothing more is committed
 * and `onFailure` runs (it stops the subscription); `push` and `drain` then throw the failure.
 */
export class CommitPipeline {
  private pending: RecordedEvent[] = [];
  private committing: Promise<void> | undefined;
  private failure: { readonly error: unknown } | undefined;

  constructor(
    private readonly commit: (batch: readonly RecordedEvent[]) => void,
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
      do {
        this.commit(this.pending.splice(0, MAX_BATCH));
        // Events the subscription had buffered join the next batch instead of starting a run.
        await Promise.resolve();
      } while (this.pending.length > 0);
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
