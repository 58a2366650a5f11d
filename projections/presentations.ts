// Read model of presentation sessions: which are open and when they expire, so the expiry
// scheduler finds its candidates without reading every stream. It only nominates: the expiry
// itself is decided on the stream (src/verification/response.ts, expirePresentation).
import { decodeRecorded, inCategory } from '../streams/event.js';
import { presentation, statusOf } from '../streams/presentation.js';
import { change, type Projection, type SqlReader } from './projection.js';

export const presentationsProjection: Projection = {
  name: 'presentations',
  tables: ['presentations'],
  schema: `CREATE TABLE IF NOT EXISTS presentations (
    state         TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    finished_at   TEXT
  );
  CREATE INDEX IF NOT EXISTS presentations_open_by_expiry ON presentations (expires_at_ms) WHERE status = 'OPEN';`,
  apply: (recorded) => {
    if (!inCategory(presentation.category, recorded)) return [];
    const event = decodeRecorded(presentation.codec, recorded);
    switch (event.type) {
      case 'PresentationRequested': {
        const d = event.data;
        return [
          change(
            `INSERT INTO presentations (state, tenant_id, status, created_at, expires_at_ms) VALUES (?, ?, 'OPEN', ?, ?)`,
            d.state, d.tenantId, d.createdAt, Date.parse(d.expiresAt),
          ),
        ];
      }
      case 'PresentationRequestFetched':
        return [];
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
