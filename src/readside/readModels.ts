// What request handlers see of the read models: a connection to query them and how far they are.
// One process keeps them (the projection runner, projectionRunner.ts); with WORKERS > 1 the
// worker processes follow it over IPC (src/workers/followedReadModels.ts).
import type { Position } from '../eventstore/port.js';
import type { Sqlite } from '../sqlite/connection.js';

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
