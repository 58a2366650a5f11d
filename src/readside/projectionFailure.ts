// Whose fault a projection's failure is. A failure of the machine or of the read-model database
// (busy, locked, full, I/O, out of memory, corrupt) says nothing about the event being applied:
// the runner stalls and retries from its checkpoint until it clears. Any other failure (SQL the
// event's data makes fail, such as JSON deeper than SQLite's limit; a constraint; an event that
// breaks its contract; an exception in the projection's code) is the event's: the same event
// fails the same way every time, so the runner retries it alone a few times and then sets it
// aside (quarantine.ts) instead of stalling every reader behind it.
import Database from 'better-sqlite3';
import { BrokenContract } from '../../streams/event.js';

/** Primary SQLite result codes (extended codes such as SQLITE_IOERR_WRITE share their prefix). */
const ENVIRONMENTAL = new Set([
  'SQLITE_ABORT',
  'SQLITE_AUTH',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_CORRUPT',
  'SQLITE_FULL',
  'SQLITE_INTERRUPT',
  'SQLITE_IOERR',
  'SQLITE_LOCKED',
  'SQLITE_NOLFS',
  'SQLITE_NOMEM',
  'SQLITE_NOTADB',
  'SQLITE_PERM',
  'SQLITE_PROTOCOL',
  'SQLITE_READONLY',
  'SQLITE_SCHEMA',
]);

const primaryCode = (code: string): string => code.split('_').slice(0, 2).join('_');

/** Whether the failure lies with the machine or the database rather than with the event. */
export const isEnvironmental = (err: unknown): boolean => err instanceof Database.SqliteError && ENVIRONMENTAL.has(primaryCode(err.code));

/** The longest reason recorded; SQLite can quote a JSON path, which holds a member name of the data. */
const MAX_REASON = 300;

/**
 * What is recorded and logged about an event's failure: never event data. SQLite's messages
 * describe the statement's failure, not the values bound to it; a broken contract names where,
 * not what; any other message (a JSON parser's quotes its input) is left out, only its kind kept.
 */
export const reasonOf = (err: unknown): string => {
  const reason =
    err instanceof Database.SqliteError
      ? `${err.code}: ${err.message}`
      : err instanceof BrokenContract
        ? `the event breaks its contract (${err.failures.join('; ')})`
        : `${err instanceof Error ? err.name : typeof err} thrown by the projection (message not recorded: it may quote event data)`;
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason;
};
