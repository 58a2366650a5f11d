// What the primary tells its workers of the read models it keeps, and when. Sending every commit
// to every worker would cost more than the projecting itself, so news goes out:
// - to every worker, when what readiness reports changes (caught up, stalled, quarantined events,
//   the primary started);
// - to one worker, when its checkpoint has reached a position the worker waits for (a request's
//   read-your-writes: the worker says so with `waitFor`);
// - to every worker every heartbeat if the checkpoint moved, so the lag readiness computes from
//   it is at most that stale.
import type { Worker } from 'node:cluster';
import { comparePositions, parsePosition, START, type Position } from '../eventstore/port.js';
import type { RunnerStatus } from '../readside/readModels.js';
import type { ReadModelsNews } from './messages.js';

const notable = (status: RunnerStatus, started: boolean): string =>
  JSON.stringify([status.caughtUp, status.failing, status.quarantine.total, status.quarantine.unacknowledged, started]);

export class ReadModelsNewsDesk {
  private readonly wanted = new Map<Worker, Position>();
  private lastNotable = '';
  private lastCheckpoint = '';
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly status: () => RunnerStatus,
    private readonly started: () => boolean,
    private readonly workers: () => readonly Worker[],
  ) {}

  startHeartbeat(intervalMs: number): void {
    this.heartbeat = setInterval(() => {
      if (this.status().checkpoint !== this.lastCheckpoint) this.toEveryone();
    }, intervalMs);
    this.heartbeat.unref();
  }

  stop(): void {
    clearInterval(this.heartbeat);
  }

  /** The runner's status or the primary's state may have changed. */
  changed(): void {
    const status = this.status();
    if (notable(status, this.started()) !== this.lastNotable) return this.toEveryone(status);
    const checkpoint = parsePosition(status.checkpoint) ?? START;
    for (const [worker, position] of this.wanted) if (comparePositions(checkpoint, position) >= 0) this.to(worker, status);
  }

  /** `worker` waits for `position`: news once the checkpoint is there (at once if it is). */
  want(worker: Worker, position: Position): void {
    const status = this.status();
    if (comparePositions(parsePosition(status.checkpoint) ?? START, position) >= 0) return this.to(worker, status);
    const before = this.wanted.get(worker);
    if (!before || comparePositions(position, before) > 0) this.wanted.set(worker, position);
  }

  /** A worker has begun (or asks again). */
  to(worker: Worker, status = this.status()): void {
    this.wanted.delete(worker);
    if (worker.isConnected()) worker.send(this.news(status));
  }

  private toEveryone(status = this.status()): void {
    this.lastNotable = notable(status, this.started());
    this.lastCheckpoint = status.checkpoint;
    for (const worker of this.workers()) this.to(worker, status);
  }

  private news(status: RunnerStatus): ReadModelsNews {
    return { connector: 'readModels', status, started: this.started() };
  }
}
