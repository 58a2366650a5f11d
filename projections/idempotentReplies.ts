// Read model of Idempotency-Key generations: the work list of the reply expiry scheduler
// (src/resources/replyExpiry.ts), recorded replies whose window has passed and whose data key is
// still to be destroyed. One row per idempotency stream, its current generation; the stream stays
// the authority (the scheduler re-reads it before it records a shred).
import { decodeRecorded, inCategory } from '../streams/event.js';
import { idempotency } from '../streams/idempotency.js';
import { change, type Projection, type SqlReader } from './projection.js';

export const idempotentRepliesProjection: Projection = {
  name: 'idempotent-replies',
  tables: ['idempotent_replies'],
  schema: `CREATE TABLE IF NOT EXISTS idempotent_replies (
    stream_id  TEXT PRIMARY KEY,
    claim_id   TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    recorded   INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS idempotent_replies_expiry ON idempotent_replies (recorded, expires_at, stream_id);`,
  apply: (recorded) => {
    if (!inCategory(idempotency.category, recorded)) return [];
    const event = decodeRecorded(idempotency.codec, recorded);
    const streamId = recorded.streamId;
    switch (event.type) {
      // A new generation replaces the last: the claim that replaced it destroyed its key first.
      case 'IdempotencyKeyClaimed':
        return [
          change(
            'INSERT OR REPLACE INTO idempotent_replies (stream_id, claim_id, expires_at, recorded) VALUES (?, ?, ?, 0)',
            streamId, event.data.claimId, event.data.expiresAt,
          ),
        ];
      case 'IdempotentReplyRecorded':
        return [change('UPDATE idempotent_replies SET recorded = 1 WHERE stream_id = ? AND claim_id = ?', streamId, event.data.claimId)];
      case 'IdempotencyKeyReleased':
      case 'IdempotentReplyShredded':
        return [change('DELETE FROM idempotent_replies WHERE stream_id = ? AND claim_id = ?', streamId, event.data.claimId)];
    }
  },
};

export interface ExpiredReply {
  readonly streamId: string;
  readonly claimId: string;
  readonly expiresAt: string;
}

/**
 * Recorded replies whose Idempotency-Key expired at or before `now` (ISO 8601), in expiry order,
 * from just after `after` (a page's last row), so a caller can page through while its own shreds
 * are still on their way to this read model.
 */
export const repliesPastExpiry = (db: SqlReader, now: string, after: ExpiredReply | undefined, limit: number): ExpiredReply[] =>
  db
    .all<{ stream_id: string; claim_id: string; expires_at: string }>(
      `SELECT stream_id, claim_id, expires_at FROM idempotent_replies
       WHERE recorded = 1 AND expires_at <= ? AND (expires_at, stream_id) > (?, ?)
       ORDER BY expires_at, stream_id LIMIT ?`,
      [now, after?.expiresAt ?? '', after?.streamId ?? '', limit],
    )
    .map((r) => ({ streamId: r.stream_id, claimId: r.claim_id, expiresAt: r.expires_at }));
