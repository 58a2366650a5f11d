// The record of events a projection could not apply and set aside (the projection runner decides
// when, projectionFailure.ts says why). It lives in the read-model file beside the read
// models it describes: a rebuild clears it and records again whatever still cannot be applied.
// An operator acknowledges an entry with an event in the store (streams/quarantine.ts), so the
// acknowledgment outlives rebuilds and reaches every instance; an acknowledged entry no longer
// holds readiness back, but the read model still goes without the event.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { acknowledgmentsStream, quarantine, type Command } from '../../streams/quarantine.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import { formatPosition, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.js';
import type { Sqlite } from '../sqlite/connection.js';

/** Created with the runner's own tables, never dropped by a rebuild (it is emptied instead). */
export const QUARANTINE_SCHEMA = `
CREATE TABLE IF NOT EXISTS projection_quarantine (
  projection     TEXT NOT NULL,
  position       TEXT NOT NULL,
  stream         TEXT NOT NULL,
  type           TEXT NOT NULL,
  reason         TEXT NOT NULL,
  quarantined_at TEXT NOT NULL,
  PRIMARY KEY (projection, position)
);
CREATE INDEX IF NOT EXISTS projection_quarantine_by_stream ON projection_quarantine (stream, projection);
`;

export interface QuarantineEntry {
  readonly projection: string;
  readonly position: string;
  /** Stream names can hold identifiers handed to wallets (a presentation's state): operators only. */
  readonly stream: string;
  readonly type: string;
  readonly reason: string;
  readonly quarantinedAt: string;
  readonly acknowledged: boolean;
}

/** Records, inside the caller's transaction, that `projection` goes on without `event`. */
export const recordQuarantine = (writer: Sqlite, projection: string, event: RecordedEvent, reason: string, at: Date): void => {
  writer.run(
    `INSERT OR REPLACE INTO projection_quarantine (projection, position, stream, type, reason, quarantined_at) VALUES (?, ?, ?, ?, ?, ?)`,
    [projection, formatPosition(event.position), event.streamId, event.type, reason, at.toISOString()],
  );
};

export const clearQuarantine = (writer: Sqlite): void => {
  writer.run('DELETE FROM projection_quarantine');
};

const ACKNOWLEDGED = 'EXISTS (SELECT 1 FROM quarantine_acknowledgments a WHERE a.position = q.position)';

/** Every entry, in the order the events were set aside. */
export const listQuarantine = (db: Sqlite): QuarantineEntry[] =>
  db
    .all<{ projection: string; position: string; stream: string; type: string; reason: string; quarantined_at: string; acknowledged: number }>(
      `SELECT q.*, ${ACKNOWLEDGED} AS acknowledged FROM projection_quarantine q ORDER BY q.rowid`,
    )
    .map((row) => ({
      projection: row.projection,
      position: row.position,
      stream: row.stream,
      type: row.type,
      reason: row.reason,
      quarantinedAt: row.quarantined_at,
      acknowledged: row.acknowledged === 1,
    }));

export const countQuarantine = (db: Sqlite): { readonly total: number; readonly unacknowledged: number } => {
  const row = db.get<{ total: number; unacknowledged: number | null }>(
    `SELECT COUNT(*) AS total, SUM(NOT ${ACKNOWLEDGED}) AS unacknowledged FROM projection_quarantine q`,
  );
  return { total: row?.total ?? 0, unacknowledged: row?.unacknowledged ?? 0 };
};

/** Whether `projection` set aside an event of `stream`: what it holds of that stream is stale or missing. */
export const isQuarantined = (db: Sqlite, projection: string, stream: string): boolean =>
  db.get('SELECT 1 AS q FROM projection_quarantine WHERE stream = ? AND projection = ?', [stream, projection]) !== undefined;

export interface NoEventAtPosition {
  readonly _tag: 'NoEventAtPosition';
}

export interface Acknowledgment {
  /** Where this call recorded the acknowledgment; undefined when it was on record already. */
  readonly position: Position | undefined;
  /** When the event was first acknowledged. */
  readonly acknowledgedAt: string;
}

/** Lost races decided again: an acknowledgment stays right whoever got in first. */
const RACE_RETRIES = 3;

/**
 * Records the operator's acknowledgment of the event at `position` (streams/quarantine.ts decides:
 * acknowledging again records nothing). Refused when the store has no event there, so a mistyped
 * position cannot acknowledge nothing and look done.
 */
export const acknowledgeQuarantine = async (
  store: EventStore,
  position: Position,
  metadata: EventMetadata,
  now: Date = new Date(),
): Promise<Either<NoEventAtPosition, Acknowledgment>> => {
  const [at] = await store.readAll({ fromPosition: position, maxCount: 1 });
  const formatted = formatPosition(position);
  if (!at || formatPosition(at.position) !== formatted) return left({ _tag: 'NoEventAtPosition' });
  const command: Command = { type: 'AcknowledgeQuarantine', data: { position: formatted, at: now.toISOString() } };
  // Named after the position: a re-run after a lost answer finds it acknowledged and appends nothing.
  const handled = await handleCommand(store, quarantine, acknowledgmentsStream, command, { commandId: `acknowledge.${formatted}`, metadata, retries: RACE_RETRIES });
  if (isLeft(handled)) throw new Error(`quarantine acknowledgment not recorded: ${handled.left.error._tag}`);
  return right({ position: handled.right.position, acknowledgedAt: handled.right.state.acknowledged.get(formatted) ?? command.data.at });
};
