// Keyset pagination over a read model: newest first by (a time column, the row's key), the next
// page starting after the last row shown. The query walks an index on (tenant_id, time, key) from
// where the cursor points, so a page costs the same over a hundred rows or a hundred thousand
// (bench/console.ts); OFFSET would read and drop every row before the page.
import type { Row, SqlReader, SqlValue } from './projection.js';

/** Where a page starts: after the row with this time and key. Opaque to clients (base64url of JSON). */
export interface Cursor {
  readonly at: string;
  readonly key: string;
}

export const encodeCursor = (cursor: Cursor): string => Buffer.from(JSON.stringify([cursor.at, cursor.key])).toString('base64url');

/** undefined for anything not made by `encodeCursor`. */
export const decodeCursor = (text: string): Cursor | undefined => {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') {
      return { at: parsed[0], key: parsed[1] };
    }
  } catch {
    // not JSON: not a cursor
  }
  return undefined;
};

export interface PageQuery {
  readonly tenantId: string;
  /** Equality filters on columns the caller names (never user input as a column name). */
  readonly where?: Readonly<Record<string, SqlValue>>;
  /** Inclusive lower and exclusive upper bound on the time column (ISO 8601). */
  readonly from?: string;
  readonly until?: string;
  readonly after?: Cursor;
  readonly limit: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** The cursor of the next page, or null on the last. */
  readonly next: string | null;
}

export const keysetPage = <T extends Row>(
  db: SqlReader,
  table: { readonly name: string; readonly columns: string; readonly time: string; readonly key: string },
  query: PageQuery,
): Page<T> => {
  const conditions = ['tenant_id = ?'];
  const params: SqlValue[] = [query.tenantId];
  for (const [column, value] of Object.entries(query.where ?? {})) {
    conditions.push(`${column} = ?`);
    params.push(value);
  }
  if (query.from !== undefined) {
    conditions.push(`${table.time} >= ?`);
    params.push(query.from);
  }
  if (query.until !== undefined) {
    conditions.push(`${table.time} < ?`);
    params.push(query.until);
  }
  if (query.after !== undefined) {
    conditions.push(`(${table.time}, ${table.key}) < (?, ?)`);
    params.push(query.after.at, query.after.key);
  }
  // One row more than the page tells whether there is a next page without counting.
  const rows = db.all<T>(
    `SELECT ${table.columns} FROM ${table.name} WHERE ${conditions.join(' AND ')}
     ORDER BY ${table.time} DESC, ${table.key} DESC LIMIT ?`,
    [...params, query.limit + 1],
  );
  const items = rows.slice(0, query.limit);
  const last = items[items.length - 1];
  const next = rows.length > query.limit && last ? encodeCursor({ at: String(last[table.time]), key: String(last[table.key]) }) : null;
  return { items, next };
};
