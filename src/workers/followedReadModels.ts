// A worker's view of the read models the primary keeps (src/workers/): the same SQLite file,
// opened read-only, and the primary's runner status as the primary last sent it. A write waiting
// for read-your-writes tells the primary the position it waits for; the primary answers once its
// checkpoint has passed it, after the transaction committed, so a query made then sees it.
import { comparePositions, parsePosition, START, type Position } from '../eventstore/port.js';
import { CheckpointWaiters } from '../readside/checkpointWaiters.js';
import type { ReadModels, RunnerStatus } from '../readside/readModels.js';
import { Sqlite } from '../sqlite/connection.js';
import type { ReadModelsNews } from './messages.js';

export class FollowedReadModels implements ReadModels {
  private readonly waiters = new CheckpointWaiters();
  private caughtUpListeners: (() => void)[] = [];
  private startedListeners: (() => void)[] = [];

  private constructor(
    readonly db: Sqlite,
    private news: ReadModelsNews,
    private readonly want: (position: Position) => void,
  ) {}

  /**
   * Opens the primary's read-model file read-only (a worker never writes to it); `want` asks the
   * primary for news once its checkpoint reaches a position.
   */
  static open(file: string, first: ReadModelsNews, want: (position: Position) => void): FollowedReadModels {
    return new FollowedReadModels(Sqlite.open(file, { synchronous: 'NORMAL', readOnly: true }), first, want);
  }

  /** The primary's latest news. */
  update(news: ReadModelsNews): void {
    this.news = news;
    this.waiters.reached(this.checkpoint);
    if (news.status.caughtUp) for (const listener of this.caughtUpListeners.splice(0)) listener();
    if (news.started) for (const listener of this.startedListeners.splice(0)) listener();
  }

  private get checkpoint(): Position {
    return parsePosition(this.news.status.checkpoint) ?? START;
  }

  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    const checkpoint = this.checkpoint;
    if (comparePositions(checkpoint, position) < 0) this.want(position);
    return this.waiters.wait(checkpoint, position, timeoutMs);
  }

  whenCaughtUp(): Promise<void> {
    if (this.news.status.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpListeners.push(resolve));
  }

  /** Resolves once the primary has started: caught up, bootstrapped, its features built. */
  whenStarted(): Promise<void> {
    if (this.news.started) return Promise.resolve();
    return new Promise((resolve) => this.startedListeners.push(resolve));
  }

  status(): RunnerStatus {
    return this.news.status;
  }

  async close(): Promise<void> {
    this.waiters.abandon();
    this.db.close();
  }
}
