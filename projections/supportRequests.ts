// Read model of support requests: the queue the operator works (ops support list|show) and what
// the tenant reads of its own (GET /support-requests). The message stays sealed here as in the
// event; whoever shows it opens it with the request's data key.
import { decodeRecorded, inCategory } from '../streams/event.js';
import { supportRequest, type SupportRequestEvent, type SupportRequestStatus, type SupportRequestType } from '../streams/supportRequest.js';
import { change, type Projection, type SqlChange, type SqlReader } from './projection.js';

export const supportRequestsProjection: Projection = {
  name: 'support_requests',
  tables: ['support_requests'],
  schema: `CREATE TABLE IF NOT EXISTS support_requests (
    request_id        TEXT PRIMARY KEY,
    tenant_id         TEXT NOT NULL,
    type              TEXT NOT NULL,
    status            TEXT NOT NULL,
    message           TEXT NOT NULL,
    note              TEXT,
    created_at        TEXT NOT NULL,
    modified_at       TEXT NOT NULL,
    export            TEXT,
    export_expires_at TEXT,
    export_available  INTEGER NOT NULL DEFAULT 0,
    erased            TEXT,
    transitions       TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS support_requests_by_tenant ON support_requests (tenant_id, created_at, request_id);
  CREATE INDEX IF NOT EXISTS support_requests_exports ON support_requests (export_available, export_expires_at);`,
  apply: (recorded) => {
    if (!inCategory(supportRequest.category, recorded)) return [];
    return changesOf(decodeRecorded(supportRequest.codec, recorded));
  },
};

/** One transition: the state entered, when, and the operator's note. */
const transition = (requestId: string, status: SupportRequestStatus, at: string, note: string | null, set = ''): SqlChange =>
  change(
    `UPDATE support_requests SET status = ?, modified_at = ?, note = coalesce(?, note)${set},
       transitions = json_insert(transitions, '$[#]', json_object('status', ?, 'at', ?, 'note', ?)) WHERE request_id = ?`,
    status, at, note, status, at, note, requestId,
  );

const changesOf = (event: SupportRequestEvent): SqlChange[] => {
  const id = event.data.requestId;
  switch (event.type) {
    case 'SupportRequestCreated': {
      const d = event.data;
      return [
        change(
          `INSERT INTO support_requests (request_id, tenant_id, type, status, message, created_at, modified_at, transitions)
           VALUES (?, ?, ?, 'OPEN', ?, ?, ?, json_array(json_object('status', 'OPEN', 'at', ?, 'note', NULL)))`,
          id, d.tenantId, d.type, JSON.stringify(d.message), d.createdAt, d.createdAt, d.createdAt,
        ),
      ];
    }
    case 'SupportRequestStarted':
      return [transition(id, 'IN_PROGRESS', event.data.startedAt, event.data.note)];
    case 'SupportRequestExported': {
      const d = event.data;
      return [
        change('UPDATE support_requests SET export = ?, export_expires_at = ?, export_available = 1 WHERE request_id = ?', JSON.stringify(d.export), d.expiresAt, id),
        transition(id, 'DONE', d.exportedAt, d.note),
      ];
    }
    case 'SupportRequestExportExpired':
      return [change('UPDATE support_requests SET export_available = 0, modified_at = ? WHERE request_id = ?', event.data.expiredAt, id)];
    case 'SupportRequestErased':
      return [change('UPDATE support_requests SET erased = ? WHERE request_id = ?', JSON.stringify(event.data.erased), id), transition(id, 'DONE', event.data.erasedAt, event.data.note)];
    case 'SupportRequestResolved':
      return [transition(id, 'DONE', event.data.resolvedAt, event.data.note)];
    case 'SupportRequestRejected':
      return [transition(id, 'REJECTED', event.data.rejectedAt, event.data.note)];
  }
};

export interface SupportRequestRow {
  readonly requestId: string;
  readonly tenantId: string;
  readonly type: SupportRequestType;
  readonly status: SupportRequestStatus;
  /** The message as sealed (a Sealed value, JSON). */
  readonly message: unknown;
  readonly note: string | null;
  readonly createdAt: string;
  readonly modifiedAt: string;
  readonly export: { readonly files: number; readonly bytes: number; readonly manifestDigest: string } | null;
  readonly exportExpiresAt: string | null;
  readonly exportAvailable: boolean;
  readonly erased: { readonly resources: number; readonly dataKeys: number; readonly blobs: number; readonly apiKeys: number } | null;
  readonly transitions: readonly { readonly status: SupportRequestStatus; readonly at: string; readonly note: string | null }[];
}

type Stored = {
  request_id: string; tenant_id: string; type: string; status: string; message: string; note: string | null; created_at: string; modified_at: string;
  export: string | null; export_expires_at: string | null; export_available: number; erased: string | null; transitions: string;
};

const rowOf = (r: Stored): SupportRequestRow => ({
  requestId: r.request_id,
  tenantId: r.tenant_id,
  type: r.type as SupportRequestType,
  status: r.status as SupportRequestStatus,
  message: JSON.parse(r.message) as unknown,
  note: r.note,
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
  export: r.export === null ? null : (JSON.parse(r.export) as SupportRequestRow['export']),
  exportExpiresAt: r.export_expires_at,
  exportAvailable: r.export_available === 1,
  erased: r.erased === null ? null : (JSON.parse(r.erased) as SupportRequestRow['erased']),
  transitions: JSON.parse(r.transitions) as SupportRequestRow['transitions'],
});

/** Support requests, oldest first; of one tenant, or in some states, when given. */
export const listSupportRequests = (db: SqlReader, filter: { readonly tenantId?: string | undefined; readonly statuses?: readonly string[] | undefined } = {}): SupportRequestRow[] => {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.tenantId !== undefined) {
    where.push('tenant_id = ?');
    params.push(filter.tenantId);
  }
  if (filter.statuses !== undefined && filter.statuses.length > 0) {
    where.push(`status IN (${filter.statuses.map(() => '?').join(', ')})`);
    params.push(...filter.statuses);
  }
  return db
    .all<Stored>(`SELECT * FROM support_requests ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, request_id`, params)
    .map(rowOf);
};

/** One request; of one tenant when given (another tenant's is not found). */
export const findSupportRequest = (db: SqlReader, requestId: string, tenantId?: string): SupportRequestRow | undefined => {
  const row = db.get<Stored>(`SELECT * FROM support_requests WHERE request_id = ?${tenantId === undefined ? '' : ' AND tenant_id = ?'}`, tenantId === undefined ? [requestId] : [requestId, tenantId]);
  return row && rowOf(row);
};

/** Requests whose export archive is still kept past its expiry, at most `limit`. */
export const findExpiredExports = (db: SqlReader, now: string, limit: number): string[] =>
  db.all<{ request_id: string }>('SELECT request_id FROM support_requests WHERE export_available = 1 AND export_expires_at <= ? ORDER BY export_expires_at LIMIT ?', [now, limit]).map((r) => r.request_id);
