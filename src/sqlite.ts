// A small promise face over the sqlite3 driver, shared by the embedded event store and the
// read models. Statements are prepared once per SQL text and reused.
import sqlite3 from 'sqlite3';

export type SqlValue = string | number | null | Buffer;
export type Row = Record<string, SqlValue>;

export interface RunResult {
  readonly changes: number;
  readonly lastId: number;
}

export interface SqliteOptions {
  /** `FULL` survives power loss; `NORMAL` (in WAL mode) survives a process crash. */
  readonly synchronous: 'FULL' | 'NORMAL' | 'OFF';
  readonly readOnly?: boolean;
}

export class Sqlite {
  private readonly statements = new Map<string, Promise<sqlite3.Statement>>();

  private constructor(private readonly db: sqlite3.Database) {}

  static async open(file: string, options: SqliteOptions): Promise<Sqlite> {
    const mode = options.readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const handle: sqlite3.Database = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(handle)));
    });
    const sqlite = new Sqlite(db);
    // Another process (the ops tool, a second reader) may hold the write lock for a moment.
    db.configure('busyTimeout', 10_000);
    if (!options.readOnly) await sqlite.exec('PRAGMA journal_mode = WAL');
    await sqlite.exec(`PRAGMA synchronous = ${options.synchronous}`);
    return sqlite;
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    const statement = await this.prepare(sql);
    return new Promise((resolve, reject) =>
      statement.run(params, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(err);
        else resolve({ changes: this.changes, lastId: this.lastID });
      }),
    );
  }

  /**
   * The first row. Stepped to the end like `all`: the driver's own `get` leaves the statement on
   * its row, holding a read transaction (an old WAL snapshot) on the connection until a reset
   * that can only be queued behind other statements; a write running in that window fails with
   * SQLITE_BUSY at once. Every `get` here selects at most one row.
   */
  async get<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async all<T extends Row = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    const statement = await this.prepare(sql);
    return new Promise((resolve, reject) =>
      statement.all(params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))),
    );
  }

  /**
   * Runs `work` inside one write transaction. The connection must not be shared with other
   * writers while it runs: the driver would interleave their statements into it.
   */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.exec('BEGIN IMMEDIATE');
    try {
      const result = await work();
      await this.exec('COMMIT');
      return result;
    } catch (err) {
      await this.exec('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    const prepared = await Promise.allSettled(this.statements.values());
    await Promise.all(
      prepared.map((p) => (p.status === 'fulfilled' ? new Promise<void>((resolve) => p.value.finalize(() => resolve())) : undefined)),
    );
    this.statements.clear();
    await new Promise<void>((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
  }

  /** Prepared once per SQL text; a statement that fails to prepare is not kept. */
  private prepare(sql: string): Promise<sqlite3.Statement> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = new Promise((resolve, reject) => {
        const prepared: sqlite3.Statement = this.db.prepare(sql, (err: Error | null) => {
          if (!err) return resolve(prepared);
          this.statements.delete(sql);
          reject(err);
        });
      });
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
