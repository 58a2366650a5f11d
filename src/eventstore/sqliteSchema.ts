// The embedded store's table, and the SQL of its appends: each append is one INSERT ... SELECT
// that checks the stream's tombstone and the expected revision and writes, under SQLite's write
// lock (sqlite.ts).
import type { ExpectedRevision } from './port.js';

/** A tombstone is a `$streamDeleted` event at a revision no real event can reach. */
export const TOMBSTONE_REVISION = Number.MAX_SAFE_INTEGER;
export const TOMBSTONE_TYPE = '$streamDeleted';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position  INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT    NOT NULL,
  revision  INTEGER NOT NULL,
  event_id  TEXT    NOT NULL,
  type      TEXT    NOT NULL,
  data      TEXT    NOT NULL,
  metadata  TEXT,
  created   INTEGER NOT NULL,
  UNIQUE (stream_id, revision)
);
-- A tombstone erases the stream's events in the same statement, as EventStoreDB's scavenge
-- eventually does: tombstoned data keys must be gone from the file, not just unreadable.
CREATE TRIGGER IF NOT EXISTS tombstone_erases_stream AFTER INSERT ON events
WHEN NEW.revision = ${TOMBSTONE_REVISION}
BEGIN
  DELETE FROM events WHERE stream_id = NEW.stream_id AND revision <> NEW.revision;
END;
`;

/** The stream's revision before a successful append, when the expectation says it. */
export const knownRevision = (expected: ExpectedRevision): number | undefined =>
  typeof expected === 'number' ? expected : expected === 'no_stream' ? -1 : undefined;

/** The SQL condition on `cur.r` (the current revision, -1 for none); an exact revision is `?4`. */
export const expectation = (expected: ExpectedRevision): string => {
  switch (expected) {
    case 'any':
      return '1';
    case 'no_stream':
      return 'cur.r = -1';
    case 'stream_exists':
      return 'cur.r >= 0';
    default:
      return 'cur.r = ?4';
  }
};

/**
 * The append statement for `count` events under an expectation. Parameters: ?1 stream, ?2 created,
 * ?3 first event id, ?4 expected revision, then 5 per event. Built once per shape and reused: the
 * text is also the key of the prepared-statement cache, which would otherwise be rebuilt and
 * hashed on every append.
 */
export const appendStatement = (count: number, expected: ExpectedRevision): string => {
  const key = `${count}:${typeof expected === 'number' ? 'exact' : expected}`;
  let sql = appendStatements.get(key);
  if (sql === undefined) {
    const rows = Array.from({ length: count }, (_, i) => {
      const k = 5 + i * 5;
      return `(?${k}, ?${k + 1}, ?${k + 2}, ?${k + 3}, ?${k + 4})`;
    });
    // With `any` and `stream_exists`, a retry is recognised by its first event id, as EventStoreDB does;
    // the lookup walks that one stream through the (stream_id, revision) index: streams here are short.
    const notRetried =
      expected === 'any' || expected === 'stream_exists'
        ? 'AND NOT EXISTS (SELECT 1 FROM events WHERE stream_id = ?1 AND event_id = ?3)'
        : '';
    // The ORDER BY gives a batch positions in revision order; one row needs no sort (SQLite would
    // still build a temp b-tree for it).
    sql = `WITH cur(r) AS (SELECT COALESCE(MAX(revision), -1) FROM events WHERE stream_id = ?1),
            dead(d) AS (SELECT EXISTS (SELECT 1 FROM events WHERE stream_id = ?1 AND revision = ${TOMBSTONE_REVISION}))
       INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created)
       SELECT ?1, cur.r + v.column1, v.column2, v.column3, v.column4, v.column5, ?2
       FROM cur, dead, (VALUES ${rows.join(', ')}) AS v
       WHERE dead.d = 0 AND ${expectation(expected)} ${notRetried}
       ${count > 1 ? 'ORDER BY v.column1' : ''}
       ${knownRevision(expected) === undefined ? 'RETURNING position, revision' : ''}`;
    appendStatements.set(key, sql);
  }
  return sql;
};
const appendStatements = new Map<string, string>();
