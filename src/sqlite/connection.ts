// A small face over the better-sqlite3 driver, shared by the embedded event store and the read
// models. Statements are prepared once per SQL text and reused.
//
// The driver is synchronous: a statement runs on the calling thread, typically in microseconds,
// with no thread-pool hop or callback per call (the asynchronous sqlite3 driver spent more time
// in that machinery than in SQLite). A transaction is therefore a plain function: nothing else
// can run on the connection, or anywhere in the process, between its statements.
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Row, SqlValue } from '../../projections/projection.js';

export type { Row, SqlValue };

export interface RunResult {
  readonly changes: number;
  readonly lastId: number;
}

export interface SqliteOptions {
  /** `FULL` survives power loss; `NORMAL` (in WAL mode) survives a process crash. */
  readonly synchronous: 'FULL' | 'NORMAL' | 'OFF';
  readonly readOnly?: boolean;
}

interface Prepared {
  readonly statement: Database.Statement;
  /**
   * Whether the SQL numbers its parameters (`?1`, possibly with gaps): the driver binds those
   * only by name, so they are prepared as `@p1`... and bound from an object.
   */
  readonly numbered: boolean;
}

/** Names that make SQLite open a database in memory (or a temporary one), not a file. */
const IN_MEMORY = new Set([':memory:', '']);

/** Milliseconds a write waits for another process (the ops tool, a second instance) to commit. */
export const BUSY_TIMEOUT_MS = 10_000;

/** What `tryTransaction` returns when another connection holds the write lock. */
export const BUSY = Symbol('busy');

const isBusy = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'SQLITE_BUSY';

export class Sqlite {
  private readonly statements = new Map<string, Prepared>();

  private constructor(private readonly db: Database.Database) {}

  static open(file: string, options: SqliteOptions): Sqlite {
    // Created here rather than by SQLite, whose files follow the umask: mode 0600. SQLite gives
    // the -wal and -shm files it creates the database file's mode, so they are private too.
    if (!options.readOnly && !IN_MEMORY.has(file)) closeSync(openSync(file, 'a', 0o600));
    const db = new Database(file, { readonly: options.readOnly ?? false, timeout: BUSY_TIMEOUT_MS });
    const sqlite = new Sqlite(db);
    if (!options.readOnly) sqlite.exec('PRAGMA journal_mode = WAL');
    sqlite.exec(`PRAGMA synchronous = ${options.synchronous}`);
    return sqlite;
  }

  /** Runs one or more statements without parameters. */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  run(sql: string, params: readonly SqlValue[] = []): RunResult {
    const { statement, numbered } = this.prepare(sql);
    const result = numbered ? statement.run(byNumber(params)) : statement.run(...params);
    return { changes: result.changes, lastId: Number(result.lastInsertRowid) };
  }

  /** The first row, or undefined. */
  get<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): T | undefined {
    const { statement, numbered } = this.prepare(sql);
    return (numbered ? statement.get(byNumber(params)) : statement.get(...params)) as T | undefined;
  }

  all<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): T[] {
    const { statement, numbered } = this.prepare(sql);
    return (numbered ? statement.all(byNumber(params)) : statement.all(...params)) as T[];
  }

  /**
   * Runs `work` inside one write transaction: committed if it returns, rolled back if it throws.
   * The work is synchronous; the type refuses a promise, whose work would run after the commit.
   */
  transaction<T>(work: () => T & (T extends PromiseLike<unknown> ? never : unknown)): T {
    this.exec('BEGIN IMMEDIATE');
    return this.commitAfter(work);
  }

  /**
   * `transaction`, unless another connection (another process) holds the write lock: then
   * nothing runs and BUSY is returned at once. SQLite's busy handler would wait for the lock by
   * sleeping on the calling thread, and with it the whole event loop; the caller can instead try
   * again after other work.
   */
  tryTransaction<T>(work: () => T & (T extends PromiseLike<unknown> ? never : unknown)): T | typeof BUSY {
    this.exec('PRAGMA busy_timeout = 0');
    try {
      this.exec('BEGIN IMMEDIATE');
    } catch (err) {
      if (isBusy(err)) return BUSY;
      throw err;
    } finally {
      this.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    return this.commitAfter(work);
  }

  /** Runs `work` in the transaction just begun: committed if it returns, rolled back if it throws. */
  private commitAfter<T>(work: () => T): T {
    try {
      const result = work();
      this.exec('COMMIT');
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.exec('ROLLBACK');
      throw err;
    }
  }

  /**
   * Runs `work` inside a savepoint of the current transaction: if it throws, what it wrote is
   * undone and the rest of the transaction kept. (SQLite itself rolls the whole transaction back
   * on a few failures, such as a full disk; the error is then rethrown with nothing to undo.)
   */
  savepoint<T>(work: () => T & (T extends PromiseLike<unknown> ? never : unknown)): T {
    this.exec('SAVEPOINT work');
    try {
      const result = work();
      this.exec('RELEASE work');
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.exec('ROLLBACK TO work; RELEASE work');
      throw err;
    }
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }

  private prepare(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      const numbered = /\?\d/.test(sql);
      prepared = { statement: this.db.prepare(numbered ? sql.replace(/\?(\d+)/g, '@p$1') : sql), numbered };
      this.statements.set(sql, prepared);
    }
    return prepared;
  }
}

/** `?1` (prepared as `@p1`) is the list's first value. */
const byNumber = (params: readonly SqlValue[]): Record<string, SqlValue> => {
  const named: Record<string, SqlValue> = {};
  params.forEach((value, i) => (named[`p${i + 1}`] = value));
  return named;
};
