// What request handlers see of the read models: a connection to query them and how far they are.
// One process keeps them (the projection runner, src/projection-runner.ts); with WORKERS > 1 the
// worker processes follow it over IPC (src/workers/followedReadModels.ts).
import { comparePositions, type Position } from './eventstore/port.js';
import type { Sqlite } from './sqlite.js';

export interface RunnerStatus {
  readonly checkpoint: string;
  readonly caughtUp: boolean;
  /** Events applied since this process started. */
  readonly applied: number;
  /** Transactions that applied them: one carries every event handed over in one turn of the event loop. */
  readonly commits: number;
  /** Time from an event's append to its application, for the last event applied. */
  readonly lastLagMs: number | null;
  /** Why projecting is stalled, while it is; it retries from the checkpoint. */
  readonly failing: string | null;
  /** Events set aside since the read models were built; unacknowledged ones hold readiness back. */
  readonly quarantine: { readonly total: number; readonly unacknowledged: number };
}

export interface ReadModels {
  /** A connection for queries. */
  readonly db: Sqlite;
  /** Resolves true once every event up to `position` is applied, false after `timeoutMs`. */
  waitFor(position: Position, timeoutMs: number): Promise<boolean>;
  /** Resolves once the read models hold all history that existed when projecting started. */
  whenCaughtUp(): Promise<void>;
  status(): RunnerStatus;
}

interface Waiter {
  readonly position: Position;
  readonly resolve: (reached: boolean) => void;
  readonly timer: NodeJS.Timeout;
}

/** Read-your-writes: callers waiting for the checkpoint to reach their position. */
export class CheckpointWaiters {
  private waiters: Waiter[] = [];

  /** Resolves true once `reached` is called with `position` or later, false after `timeoutMs`. */
  wait(checkpoint: Position, position: Position, timeoutMs: number): Promise<boolean> {
    if (comparePositions(checkpoint, position) >= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** The checkpoint is now `checkpoint`: every waiter at or before it resolves true. */
  reached(checkpoint: Position): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (comparePositions(checkpoint, waiter.position) < 0) return true;
      clearTimeout(waiter.timer);
      waiter.resolve(true);
      return false;
    });
  }

  /** Every waiter resolves false: the read models are closing. */
  abandon(): void {
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
  }
}
