// Group commit for the embedded store. Each write is one statement; the writes asked for in one
// turn of the event loop commit in one transaction at its end, so at synchronous=FULL they share
// one fsync, and each is acknowledged once that transaction has committed. A statement's own
// refusal (no row inserted) is its result, not a failure; if the shared transaction fails (disk
// full, I/O), nothing of it is kept and each write runs again alone, for its own outcome.
import type { Sqlite } from '../sqlite.js';

interface QueuedWrite {
  readonly statement: () => unknown;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit {
  private readonly queued: QueuedWrite[] = [];

  constructor(private readonly db: Sqlite) {}

  /** Runs `statement` in the next group commit; resolves with its result once committed. */
  write<T>(statement: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.commit());
      this.queued.push({ statement, resolve: resolve as (result: unknown) => void, reject });
    });
  }

  private commit(): void {
    const writes = this.queued.splice(0);
    if (writes.length > 1) {
      try {
        const results = this.db.transaction(() => writes.map((w) => w.statement()));
        writes.forEach((w, i) => w.resolve(results[i]));
        return;
      } catch {
        // Rolled back: fall through to one transaction per write.
      }
    }
    for (const w of writes) {
      try {
        w.resolve(w.statement());
      } catch (err) {
        w.reject(err);
      }
    }
  }
}
