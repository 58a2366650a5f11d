// Group commit for the embedded store. Each write is one statement; the writes asked for in one
// turn of the event loop commit in one transaction at its end, and each is acknowledged once that
// transaction has committed and `durable` (the store's WAL flush) has resolved, so they share one
// flush. Writes asked for while a flush runs wait for it to end and then commit together: a
// flush that started before their commit could not cover them anyway, so this delays no
// acknowledgement and makes one commit of what would have been many.
//
// A statement's own refusal (no row inserted) is its result, not a failure; if the shared
// transaction fails (disk full, I/O), nothing of it is kept and each write runs again alone, for
// its own outcome.
import type { Sqlite } from '../sqlite.js';

interface QueuedWrite {
  readonly statement: () => unknown;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit {
  private readonly queued: QueuedWrite[] = [];
  private scheduled = false;
  private flushing = false;

  constructor(
    private readonly db: Sqlite,
    private readonly durable: () => Promise<void>,
  ) {}

  /** Runs `statement` in the next group commit; resolves with its result once committed and flushed. */
  write<T>(statement: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      this.queued.push({ statement, resolve: resolve as (result: unknown) => void, reject });
      this.schedule();
    });
  }

  /** A commit at the end of this turn, unless one is due or a flush runs (it schedules one). */
  private schedule(): void {
    if (this.scheduled || this.flushing || this.queued.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.commit();
    });
  }

  private commit(): void {
    const committed = this.runAll(this.queued.splice(0));
    if (committed.length === 0) return;
    this.flushing = true;
    this.durable()
      .then(
        () => committed.forEach(({ write, result }) => write.resolve(result)),
        (err: unknown) => committed.forEach(({ write }) => write.reject(err)),
      )
      .finally(() => {
        this.flushing = false;
        this.schedule();
      });
  }

  /** Commits the writes; rejects at once those that failed, returns the others with results. */
  private runAll(writes: readonly QueuedWrite[]): { write: QueuedWrite; result: unknown }[] {
    if (writes.length > 1) {
      try {
        const results = this.db.transaction(() => writes.map((w) => w.statement()));
        return writes.map((write, i) => ({ write, result: results[i] }));
      } catch {
        // Rolled back: fall through to one transaction per write.
      }
    }
    return writes.flatMap((write) => {
      try {
        return [{ write, result: write.statement() }];
      } catch (err) {
        write.reject(err);
        return [];
      }
    });
  }
}
