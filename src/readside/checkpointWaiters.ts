// Read-your-writes: a write that must be visible to the next read waits, with a bound, until the
// read models' checkpoint has passed its position.
import { comparePositions, type Position } from '../eventstore/port.js';

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
