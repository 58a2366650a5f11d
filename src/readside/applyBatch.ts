// Applying events to the projections so that one event a projection cannot apply does not stop
// every reader behind it. A batch commits in one transaction with the checkpoint after it. When
// it fails for a reason that lies with its events (projectionFailure.ts), each of its events is
// applied in its own transaction, each projection in a savepoint, so the good events are still
// applied; a projection that fails on one event ATTEMPTS times in a row sets it aside
// (quarantine.ts) and goes on. A failure of the database or the machine is thrown instead: the
// runner stalls and retries from the checkpoint, and nothing is set aside for it.
import type { Projection, SqlChange } from '../../projections/projection.js';
import type { RecordedEvent } from '../eventstore/port.js';
import { isEnvironmental, reasonOf } from './projectionFailure.js';
import { recordQuarantine } from './quarantine.js';
import { saveCheckpoint } from './readModelTables.js';
import type { Sqlite } from '../sqlite/connection.js';

/** Times a projection tries an event on its own before setting it aside. */
const ATTEMPTS = 3;

export interface SetAside {
  readonly projection: string;
  readonly reason: string;
}

/** One committed transaction: `events` events up to `last`, and what it set aside of `last`. */
export interface Commit {
  readonly events: number;
  readonly last: RecordedEvent;
  readonly setAside: readonly SetAside[];
}

/**
 * Applies `batch` to `projections`, calling `committed` after each transaction (one, or one per
 * event once the batch has failed), so that the caller's view of the checkpoint stays right when
 * a later transaction throws.
 */
export const applyBatch = (writer: Sqlite, projections: readonly Projection[], batch: readonly RecordedEvent[], committed: (commit: Commit) => void): void => {
  const last = batch[batch.length - 1];
  if (!last) return;
  try {
    writer.transaction(() => {
      for (const event of batch) for (const projection of projections) runChanges(writer, projection.apply(event));
      saveCheckpoint(writer, last.position);
    });
  } catch (err) {
    if (isEnvironmental(err)) throw err;
    for (const event of batch) committed({ events: 1, last: event, setAside: applyAlone(writer, projections, event) });
    return;
  }
  committed({ events: batch.length, last, setAside: [] });
};

/** Applies one event in its own transaction; a failure of the environment rolls it all back and is thrown. */
const applyAlone = (writer: Sqlite, projections: readonly Projection[], event: RecordedEvent): readonly SetAside[] =>
  writer.transaction(() => {
    const setAside = projections.flatMap((projection) => {
      const failure = applyWithRetries(writer, projection, event);
      return failure === undefined ? [] : [{ projection: projection.name, reason: reasonOf(failure) }];
    });
    for (const { projection, reason } of setAside) recordQuarantine(writer, projection, event, reason, new Date());
    saveCheckpoint(writer, event.position);
    return setAside;
  });

/** Undefined once `projection` has applied `event`; else its last failure. */
const applyWithRetries = (writer: Sqlite, projection: Projection, event: RecordedEvent): unknown => {
  let failure: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      writer.savepoint(() => runChanges(writer, projection.apply(event)));
      return undefined;
    } catch (err) {
      if (isEnvironmental(err)) throw err;
      failure = err;
    }
  }
  return failure;
};

const runChanges = (writer: Sqlite, changes: readonly SqlChange[]): void => {
  for (const change of changes) writer.run(change.sql, change.params);
};
