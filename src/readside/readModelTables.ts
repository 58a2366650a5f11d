// The read-model file's own tables: the checkpoint (every projection has applied `$all` up to
// it), each projection's schema as last created, and the quarantine. The read models are
// disposable: a changed projection schema, like a missing file, means a rebuild from the start.
import type { Projection } from '../../projections/projection.js';
import { formatPosition, parsePosition, START, type Position } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { clearQuarantine, QUARANTINE_SCHEMA } from './quarantine.js';
import type { Sqlite } from '../sqlite/connection.js';

const META = `
CREATE TABLE IF NOT EXISTS projection_checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), position TEXT NOT NULL);
INSERT OR IGNORE INTO projection_checkpoint (id, position) VALUES (1, '0/0');
CREATE TABLE IF NOT EXISTS projection_schema (name TEXT PRIMARY KEY, schema TEXT NOT NULL, tables TEXT NOT NULL);
${QUARANTINE_SCHEMA}`;

/**
 * Creates the file's own tables and returns the checkpoint to resume after: the stored one, or the
 * start once the read models are recreated because the stored schemas differ from the
 * projections' (added, removed, changed).
 */
export const prepareReadModels = (writer: Sqlite, projections: readonly Projection[], log: Logger): Position => {
  writer.exec(META);
  const stored = writer.all<{ name: string; schema: string; tables: string }>('SELECT * FROM projection_schema');
  const same = stored.length === projections.length && projections.every((p) => stored.some((s) => s.name === p.name && s.schema === p.schema));
  if (same) return readCheckpoint(writer);
  if (stored.length > 0) log.info('projection schemas changed, rebuilding read models', {});
  recreate(writer, [...stored.flatMap((s) => JSON.parse(s.tables) as string[]), ...projections.flatMap((p) => p.tables)], projections);
  return START;
};

/** Empties every read model and the quarantine, and sets the checkpoint back to the start. */
export const resetReadModels = (writer: Sqlite, projections: readonly Projection[]): void =>
  recreate(writer, projections.flatMap((p) => p.tables), projections);

/** Where the read models stand in `$all`: every event up to it is applied. */
export const readCheckpoint = (db: Sqlite): Position =>
  parsePosition(db.get<{ position: string }>('SELECT position FROM projection_checkpoint WHERE id = 1')?.position ?? '') ?? START;

/** Inside the caller's transaction, with the changes applied up to `position`. */
export const saveCheckpoint = (writer: Sqlite, position: Position): void => {
  writer.run('UPDATE projection_checkpoint SET position = ? WHERE id = 1', [formatPosition(position)]);
};

const recreate = (writer: Sqlite, dropped: readonly string[], projections: readonly Projection[]): void =>
  writer.transaction(() => {
    for (const table of new Set(dropped)) writer.exec(`DROP TABLE IF EXISTS "${table.replaceAll('"', '')}"`);
    writer.run('DELETE FROM projection_schema');
    clearQuarantine(writer);
    for (const p of projections) {
      writer.exec(p.schema);
      writer.run('INSERT INTO projection_schema (name, schema, tables) VALUES (?, ?, ?)', [p.name, p.schema, JSON.stringify(p.tables)]);
    }
    saveCheckpoint(writer, START);
  });
