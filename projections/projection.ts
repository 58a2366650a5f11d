// A read model: the tables it owns and a pure function from a recorded event to the SQL
// changes it makes. The runner (src/readside/projectionRunner.ts) applies the changes and the
// checkpoint in one transaction.
import type { RecordedEvent } from '../streams/kernel.js';

export type SqlValue = string | number | null | Buffer;
export type Row = Record<string, SqlValue>;

/**
 * What a read model's queries ask of the database they read: `src/sqlite/connection.ts`'s `Sqlite` is one.
 * Declared here so that projections/ stands on streams/ alone.
 */
export interface SqlReader {
  get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): T | undefined;
  all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): T[];
}

export interface SqlChange {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

export interface Projection {
  readonly name: string;
  /** Tables the projection owns; a rebuild drops them. */
  readonly tables: readonly string[];
  /** DDL creating the tables and indexes; a change to it makes the runner rebuild. */
  readonly schema: string;
  readonly apply: (event: RecordedEvent) => readonly SqlChange[];
}

export const change = (sql: string, ...params: SqlValue[]): SqlChange => ({ sql, params });
