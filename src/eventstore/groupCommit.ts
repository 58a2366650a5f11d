// Group commit for the embedded store. Each write is one statement; the writes asked for in one
// turn of the event loop commit in one transaction at its end, and each is acknowledged once that
// transaction has committed and `durable` (the store's WAL flush) has resolved, so they share one
// flush. Writes asked for while a flush runs wait for it to end and then commit together: a
// flush that started before their commit could not cover them anyway, so this delays no
// acknowledgement and makes one commit of what would have been many.
//
// Another process may hold the write lock (a worker beside this one: src/workers/, or the ops
// tool). The commit then does not wait for it in SQLite's busy handler, which would put the whole
// event loop to sleep: it tries again after a turn of the event loop, then after growing pauses,
// with whatever was asked for meanwhile in the same transaction. Past BUSY_TIMEOUT_MS it waits
// in the busy handler after all, and a lock still held then fails the writes.
//
// A statement's own refusal (no row inserted) is its result, not a failure; if the shared
// transaction fails (disk full, I/O), nothing of it is kept and each write runs again alone, for
// its own outcome.
import { BUSY, BUSY_TIMEOUT_MS, type Sqlite } from '../sqlite/connection.js';

interface QueuedWrite {
  readonly statement: () => unknown;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Tries at the next turn of the event loop this many times, then after pauses doubling up to MAX_PAUSE_MS. */
const IMMEDIATE_RETRIES = 3;
const MAX_PAUSE_MS = 8;

export class GroupCommit {
  private readonly queued: QueuedWrite[] = [];
  private scheduled = false;
  private flushing = false;
  /** While another process holds the write lock: since when, and how many tries so far. */
  private busy: { readonly since: number; tries: number } | undefined;

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
    setImmediate(() => this.commit());
  }

  private commit(): void {
    this.scheduled = false;
    const writes = this.queued.splice(0);
    const committed = this.runAll(writes);
    if (committed === BUSY) return this.retry(writes);
    this.busy = undefined;
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

  /** Another process holds the write lock: the writes go first in the next try. */
  private retry(writes: readonly QueuedWrite[]): void {
    this.queued.unshift(...writes);
    const busy = (this.busy ??= { since: Date.now(), tries: 0 });
    busy.tries++;
    this.scheduled = true;
    if (busy.tries <= IMMEDIATE_RETRIES) setImmediate(() => this.commit());
    else setTimeout(() => this.commit(), Math.min(2 ** (busy.tries - IMMEDIATE_RETRIES - 1), MAX_PAUSE_MS));
  }

  /**
   * Commits the writes; rejects at once those that failed and returns the others with results;
   * BUSY, with nothing run, while another process holds the write lock (until BUSY_TIMEOUT_MS).
   */
  private runAll(writes: readonly QueuedWrite[]): { write: QueuedWrite; result: unknown }[] | typeof BUSY {
    const patient = this.busy !== undefined && Date.now() - this.busy.since >= BUSY_TIMEOUT_MS;
    const all = () => writes.map((w) => w.statement());
    try {
      const results = patient ? this.db.transaction(all) : this.db.tryTransaction(all);
      if (results === BUSY) return BUSY;
      return writes.map((write, i) => ({ write, result: results[i] }));
    } catch (err) {
      // Rolled back. A write alone has its outcome; several go again one transaction each.
      if (writes.length === 1) {
        writes[0]!.reject(err);
        return [];
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
