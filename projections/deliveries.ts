// Read model of callback deliveries: what is due (for the deliverer), what is left to shred, and
// the operator's listing with every attempt. The write side (the delivery stream) stays the
// authority: the deliverer re-reads a stream before it claims it.
import { delivery, type DeliveryStatus } from '../streams/delivery.js';
import { decodeRecorded, inCategory } from '../streams/event.js';
import { parsePosition, type Position } from '../streams/kernel.js';
import { keysetPage, type Page, type PageQuery } from './keysetPage.js';
import { change, type Projection, type Row, type SqlReader } from './projection.js';

export const deliveriesProjection: Projection = {
  name: 'deliveries',
  tables: ['deliveries', 'delivery_attempts'],
  schema: `CREATE TABLE IF NOT EXISTS deliveries (
    delivery_id      TEXT PRIMARY KEY,
    tenant_id        TEXT NOT NULL,
    event_id         TEXT NOT NULL,
    status           TEXT NOT NULL,
    source_stream    TEXT NOT NULL,
    source_position  TEXT NOT NULL,
    source_commit    INTEGER NOT NULL,
    source_prepare   INTEGER NOT NULL,
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL,
    next_attempt_at  TEXT,
    claim_expires_at TEXT,
    sealed_owner_id  TEXT,
    data_destroyed   INTEGER NOT NULL,
    abandon_reason   TEXT,
    recorded_at      TEXT NOT NULL,
    updated_at       TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (state, next_attempt_at);
  CREATE INDEX IF NOT EXISTS deliveries_tenant ON deliveries (tenant_id, state);
  CREATE INDEX IF NOT EXISTS deliveries_source ON deliveries (source_commit, source_prepare);
  CREATE INDEX IF NOT EXISTS deliveries_by_tenant ON deliveries (tenant_id, recorded_at, delivery_id);
  CREATE INDEX IF NOT EXISTS deliveries_by_source ON deliveries (tenant_id, source_stream, recorded_at, delivery_id);
  CREATE TABLE IF NOT EXISTS delivery_attempts (
    delivery_id  TEXT NOT NULL,
    attempt      INTEGER NOT NULL,
    attempted_at TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    http_status  INTEGER,
    detail       TEXT,
    duration_ms  INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  );`,
  apply: (recorded) => {
    if (!inCategory(delivery.category, recorded)) return [];
    const event = decodeRecorded(delivery.codec, recorded);
    const at = recorded.created.toISOString();
    const id = event.data.deliveryId;
    const attemptRow = (attempt: number, attemptedAt: string, outcome: string, httpStatus: number | null, detail: string | null, durationMs: number) =>
      change(
        `INSERT OR REPLACE INTO delivery_attempts (delivery_id, attempt, attempted_at, outcome, http_status, detail, duration_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        id, attempt, attemptedAt, outcome, httpStatus, detail, Math.round(durationMs),
      );
    switch (event.type) {
      case 'DeliveryRecorded': {
        const { callback, source, recordedAt } = event.data;
        const position = parsePosition(source.position) ?? { commit: 0n, prepare: 0n };
        return [
          change(
            `INSERT OR IGNORE INTO deliveries (delivery_id, tenant_id, event_id, status, source_stream, source_position, source_commit,
               source_prepare, state, attempts, next_attempt_at, sealed_owner_id, data_destroyed, recorded_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, 0, ?, ?)`,
            id, callback.tenantId, callback.eventId, callback.status, source.streamId, source.position,
            Number(position.commit), Number(position.prepare), recordedAt, callback.sealed?.ownerId ?? null, recordedAt, at,
          ),
        ];
      }
      case 'DeliveryClaimed':
        return [change('UPDATE deliveries SET claim_expires_at = ?, updated_at = ? WHERE delivery_id = ?', event.data.expiresAt, at, id)];
      case 'DeliveryAttemptFailed': {
        const d = event.data;
        return [
          change(
            'UPDATE deliveries SET attempts = ?, next_attempt_at = ?, claim_expires_at = NULL, updated_at = ? WHERE delivery_id = ?',
            d.attempt, d.nextAttemptAt, at, id,
          ),
          attemptRow(d.attempt, d.attemptedAt, d.reason, d.httpStatus, d.detail, d.durationMs),
        ];
      }
      case 'DeliveryDelivered': {
        const d = event.data;
        return [
          change(
            `UPDATE deliveries SET state = 'delivered', attempts = ?, next_attempt_at = NULL, claim_expires_at = NULL, updated_at = ?
             WHERE delivery_id = ?`,
            d.attempt, at, id,
          ),
          attemptRow(d.attempt, d.attemptedAt, 'delivered', d.httpStatus, null, d.durationMs),
        ];
      }
      case 'DeliveryAbandoned': {
        const state: DeliveryStatus = event.data.reason === 'no_callback_url' ? 'undeliverable' : 'abandoned';
        return [
          change(
            `UPDATE deliveries SET state = ?, abandon_reason = ?, next_attempt_at = NULL, claim_expires_at = NULL, updated_at = ?
             WHERE delivery_id = ?`,
            state, event.data.reason, at, id,
          ),
        ];
      }
      case 'DeliveryResendRequested':
        return [
          change(
            `UPDATE deliveries SET state = 'pending', abandon_reason = NULL, next_attempt_at = ?, claim_expires_at = NULL, updated_at = ?
             WHERE delivery_id = ?`,
            event.data.requestedAt, at, id,
          ),
        ];
      case 'DeliveryDataDestroyed':
        return [change('UPDATE deliveries SET data_destroyed = 1, updated_at = ? WHERE delivery_id = ?', at, id)];
    }
  },
};

/** Pending deliveries whose next attempt is due and whose claim (if any) has lapsed, oldest first. */
export const dueDeliveries = (db: SqlReader, now: Date, limit: number): string[] => {
  const iso = now.toISOString();
  const rows = db.all<{ delivery_id: string }>(
    `SELECT delivery_id FROM deliveries
     WHERE state = 'pending' AND next_attempt_at <= ? AND (claim_expires_at IS NULL OR claim_expires_at <= ?)
     ORDER BY next_attempt_at LIMIT ?`,
    [iso, iso, limit],
  );
  return rows.map((r) => r.delivery_id);
};

/** Deliveries recorded and not yet ended (delivered, abandoned or undeliverable): the queue, for metrics. */
export const countPendingDeliveries = (db: SqlReader): number =>
  db.get<{ n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE state = 'pending'")?.n ?? 0;

/** Ended deliveries whose flow data key is not yet recorded as destroyed. */
export const deliveriesWithDataToDestroy = (db: SqlReader, limit: number): string[] => {
  const rows = db.all<{ delivery_id: string }>(
    `SELECT delivery_id FROM deliveries
     WHERE state <> 'pending' AND sealed_owner_id IS NOT NULL AND data_destroyed = 0 LIMIT ?`,
    [limit],
  );
  return rows.map((r) => r.delivery_id);
};

/**
 * The furthest source event any instance has recorded a delivery for. Every instance records in
 * `$all` order, so everything before it is recorded too: this is the recorder's checkpoint,
 * derived from the delivery streams themselves.
 */
export const lastRecordedSource = (db: SqlReader): Position | undefined => {
  const row = db.get<{ source_position: string }>(
    'SELECT source_position FROM deliveries ORDER BY source_commit DESC, source_prepare DESC LIMIT 1',
  );
  return row ? parsePosition(row.source_position) : undefined;
};

export interface DeliveryAttemptRow {
  readonly attempt: number;
  readonly attempted_at: string;
  readonly outcome: string;
  readonly http_status: number | null;
  readonly detail: string | null;
  readonly duration_ms: number;
}

export interface DeliveryRow {
  readonly delivery_id: string;
  readonly tenant_id: string;
  readonly event_id: string;
  readonly status: string;
  readonly source_stream: string;
  readonly state: DeliveryStatus;
  readonly attempts: number;
  readonly next_attempt_at: string | null;
  readonly abandon_reason: string | null;
  readonly data_destroyed: number;
  readonly recorded_at: string;
  readonly updated_at: string;
}

const ROW_COLUMNS = `delivery_id, tenant_id, event_id, status, source_stream, state, attempts, next_attempt_at, abandon_reason,
  data_destroyed, recorded_at, updated_at`;

export interface DeliveryListing extends DeliveryRow {
  readonly attempt_log: readonly DeliveryAttemptRow[];
}

export const listDeliveries = (
  db: SqlReader,
  filter: { readonly tenantId?: string | undefined; readonly states?: readonly DeliveryStatus[] | undefined },
): DeliveryListing[] => {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.tenantId !== undefined) {
    where.push('tenant_id = ?');
    params.push(filter.tenantId);
  }
  if (filter.states && filter.states.length > 0) {
    where.push(`state IN (${filter.states.map(() => '?').join(', ')})`);
    params.push(...filter.states);
  }
  const rows = db.all<DeliveryRow & Record<string, string | number | null>>(
    `SELECT ${ROW_COLUMNS} FROM deliveries ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY recorded_at, delivery_id`,
    params,
  );
  return rows.map((row) => ({ ...row, attempt_log: attemptLog(db, row.delivery_id) }));
};

/** One delivery's state and its latest attempt, or undefined when it is not recorded (yet). */
export const findDelivery = async (db: SqlReader, deliveryId: string): Promise<(DeliveryRow & { readonly last_attempt: DeliveryAttemptRow | null }) | undefined> => {
  const row = db.get<DeliveryRow & Record<string, string | number | null>>(
    `SELECT ${ROW_COLUMNS} FROM deliveries WHERE delivery_id = ?`,
    [deliveryId],
  );
  if (!row) return undefined;
  const last = db.get<DeliveryAttemptRow & Record<string, string | number | null>>(
    `SELECT attempt, attempted_at, outcome, http_status, detail, duration_ms FROM delivery_attempts
     WHERE delivery_id = ? ORDER BY attempt DESC LIMIT 1`,
    [deliveryId],
  );
  return { ...row, last_attempt: last ?? null };
};

const attemptLog = (db: SqlReader, deliveryId: string): DeliveryAttemptRow[] =>
  db.all<DeliveryAttemptRow & Row>(
    `SELECT attempt, attempted_at, outcome, http_status, detail, duration_ms FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt`,
    [deliveryId],
  );

/**
 * A page of a tenant's deliveries, newest first, optionally in one state or about one flow (the
 * stream whose event they tell of), each with its attempts (the console's list).
 */
export const pageDeliveries = (db: SqlReader, query: PageQuery & { readonly state?: DeliveryStatus; readonly sourceStream?: string }): Page<DeliveryListing> => {
  const page = keysetPage<DeliveryRow & Row>(
    db,
    { name: 'deliveries', columns: ROW_COLUMNS, time: 'recorded_at', key: 'delivery_id' },
    {
      ...query,
      where: { ...(query.state === undefined ? {} : { state: query.state }), ...(query.sourceStream === undefined ? {} : { source_stream: query.sourceStream }) },
    },
  );
  return { items: page.items.map((row) => ({ ...row, attempt_log: attemptLog(db, row.delivery_id) })), next: page.next };
};

/** A tenant's deliveries by state (`pending`, `abandoned`...), for the console's dashboard. */
export const countDeliveriesByState = (db: SqlReader, tenantId: string): Record<string, number> =>
  Object.fromEntries(
    db.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM deliveries WHERE tenant_id = ? GROUP BY state', [tenantId]).map((r) => [r.state, r.n]),
  );
