// Read model of presentation sessions: which are open and when they expire, so the expiry
// scheduler finds its candidates without reading every stream. It only nominates: the expiry
// itself is decided on the stream (src/verification/response.ts, expirePresentation). The console
// lists a tenant's sessions from it, newest first, a page at a time (listPresentations).
import { decodeRecorded, inCategory } from '../streams/event.js';
import { presentation, statusOf } from '../streams/presentation.js';
import { keysetPage, type Page, type PageQuery } from './keysetPage.js';
import { change, type Projection, type Row, type SqlReader } from './projection.js';

export const presentationsProjection: Projection = {
  name: 'presentations',
  tables: ['presentations'],
  schema: `CREATE TABLE IF NOT EXISTS presentations (
    state         TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    finished_at   TEXT,
    flow_type     TEXT
  );
  CREATE INDEX IF NOT EXISTS presentations_open_by_expiry ON presentations (expires_at_ms) WHERE status = 'OPEN';
  CREATE INDEX IF NOT EXISTS presentations_by_tenant ON presentations (tenant_id, created_at, state);
  CREATE INDEX IF NOT EXISTS presentations_by_tenant_status ON presentations (tenant_id, status, created_at, state);
  CREATE INDEX IF NOT EXISTS presentations_by_tenant_finished ON presentations (tenant_id, finished_at);`,
  apply: (recorded) => {
    if (!inCategory(presentation.category, recorded)) return [];
    const event = decodeRecorded(presentation.codec, recorded);
    switch (event.type) {
      case 'PresentationRequested': {
        const d = event.data;
        return [
          change(
            `INSERT INTO presentations (state, tenant_id, status, created_at, expires_at_ms, flow_type) VALUES (?, ?, 'OPEN', ?, ?, ?)`,
            d.state, d.tenantId, d.createdAt, Date.parse(d.expiresAt), d.dcApi ? 'dc_api' : null,
          ),
        ];
      }
      case 'PresentationRequestFetched':
        // The flow type the wallet fetched the request with; the last fetch is the one answered.
        return [change('UPDATE presentations SET flow_type = ? WHERE state = ?', event.data.flowType, recorded.streamId.slice(presentation.category.length + 1))];
      default:
        return [change('UPDATE presentations SET status = ?, finished_at = ? WHERE state = ?', statusOf(event), event.data.at, event.data.state)];
    }
  },
};

/** Open sessions whose expiry has passed at `nowMs`, oldest first. */
export const findExpiredPresentations = (db: SqlReader, nowMs: number, limit: number): readonly string[] =>
  (
    db.all<{ state: string }>(
      `SELECT state FROM presentations WHERE status = 'OPEN' AND expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?`,
      [nowMs, limit],
    )
  ).map((row) => row.state);

export interface PresentationRow extends Row {
  readonly state: string;
  readonly status: string;
  readonly flow_type: string | null;
  readonly created_at: string;
  readonly finished_at: string | null;
}

/** A page of a tenant's sessions, newest first, optionally of one status and created in [from, until). */
export const listPresentations = (db: SqlReader, query: PageQuery & { readonly status?: string }): Page<PresentationRow> =>
  keysetPage<PresentationRow>(
    db,
    { name: 'presentations', columns: 'state, status, flow_type, created_at, finished_at', time: 'created_at', key: 'state' },
    { ...query, where: query.status === undefined ? {} : { status: query.status } },
  );

/** The tenant a session belongs to, if it exists. */
export const presentationTenant = (db: SqlReader, state: string): string | undefined =>
  db.get<{ tenant_id: string }>('SELECT tenant_id FROM presentations WHERE state = ?', [state])?.tenant_id;

export interface OutcomeCount extends Row {
  /** The minute (`2026-01-31T12:34`) or hour (`2026-01-31T12`) the sessions ended in. */
  readonly bucket: string;
  readonly status: string;
  readonly count: number;
}

/** How many of a tenant's sessions ended with each outcome, per minute or hour, since `since`. */
export const outcomesSince = (db: SqlReader, tenantId: string, since: string, per: 'minute' | 'hour'): OutcomeCount[] =>
  db.all<OutcomeCount>(
    `SELECT substr(finished_at, 1, ?) AS bucket, status, COUNT(*) AS count FROM presentations
     WHERE tenant_id = ? AND finished_at >= ? GROUP BY bucket, status ORDER BY bucket, status`,
    [per === 'minute' ? 16 : 13, tenantId, since],
  );

export interface PresentationSessionRow {
  readonly state: string;
  readonly tenant_id: string;
  readonly status: string;
  readonly created_at: string;
  readonly expires_at_ms: number;
  readonly finished_at: string | null;
}

/** Every presentation session of the tenant, oldest first (what the read model has: no disclosed claims). */
export const listTenantPresentationSessions = (db: SqlReader, tenantId: string): PresentationSessionRow[] =>
  db.all<PresentationSessionRow & Record<string, string | number | null>>('SELECT * FROM presentations WHERE tenant_id = ? ORDER BY created_at, state', [tenantId]);
