// A read model: the tables it owns and a pure function from a recorded event to the SQL
// changes it makes. The runner (src/readside/projectionRunner.ts) applies the changes and the
// checkpoint in one transaction.
import type { RecordedEvent } from '../src/eventstore/port.js';
import type { SqlValue } from '../src/readside/sqliteConnection.js';

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
