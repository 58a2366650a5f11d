// Read model of credential offers: the status an integrator can look up, and the work list of
// the expiry scheduler (open offers past their time-to-live, ended offers whose claims are not
// yet purged). The claims are not here: they exist only sealed in the offer stream.
import { decodeRecorded, inCategory } from '../streams/event.js';
import { offer, type OfferStatus } from '../streams/offer.js';
import { keysetPage, type Page, type PageQuery } from './keysetPage.js';
import { change, type Projection, type Row, type SqlReader } from './projection.js';

export const offersProjection: Projection = {
  name: 'offers',
  tables: ['offers'],
  schema: `CREATE TABLE IF NOT EXISTS offers (
    offer_id                    TEXT PRIMARY KEY,
    tenant_id                   TEXT NOT NULL,
    credential_configuration_id TEXT NOT NULL,
    status                      TEXT NOT NULL,
    tx_code_required            INTEGER NOT NULL,
    created_at                  TEXT NOT NULL,
    expires_at                  TEXT NOT NULL,
    ended_at                    TEXT,
    error_details               TEXT,
    claims_purged               INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS offers_open ON offers (status, expires_at);
  CREATE INDEX IF NOT EXISTS offers_unpurged ON offers (claims_purged, ended_at);
  CREATE INDEX IF NOT EXISTS offers_by_tenant ON offers (tenant_id, created_at, offer_id);`,
  apply: (recorded) => {
    if (!inCategory(offer.category, recorded)) return [];
    const event = decodeRecorded(offer.codec, recorded);
    const offerId = recorded.streamId.slice(offer.category.length + 1);
    const end = (status: OfferStatus, endedAt: string, errorDetails: string | null = null) => [
      change('UPDATE offers SET status = ?, ended_at = ?, error_details = ? WHERE offer_id = ?', status, endedAt, errorDetails, offerId),
    ];
    switch (event.type) {
      case 'OfferCreated': {
        const d = event.data;
        return [
          change(
            `INSERT INTO offers (offer_id, tenant_id, credential_configuration_id, status, tx_code_required, created_at, expires_at)
             VALUES (?, ?, ?, 'OFFER_CREATED', ?, ?, ?)`,
            d.offerId, d.tenantId, d.credentialConfigurationId, d.txCode === null ? 0 : 1, d.createdAt, d.expiresAt,
          ),
        ];
      }
      case 'CredentialIssued':
        return end('ISSUED', event.data.issuedAt);
      case 'OfferFailed':
        return end('FAILED', event.data.failedAt, event.data.errorDetails);
      case 'OfferExpired':
        return end('EXPIRED', event.data.expiredAt);
      case 'ClaimsPurged':
        return [change('UPDATE offers SET claims_purged = 1 WHERE offer_id = ?', offerId)];
      case 'TxCodeRejected':
      case 'PreAuthorizedCodeRedeemed':
      case 'AuthorizationRequestPushed':
      case 'AuthorizationStarted':
      case 'AuthorizationCompleted':
      case 'AuthorizationDenied':
      case 'AuthorizationCodeRedeemed':
      case 'AuthorizationCodeReplayed':
        return [];
    }
  },
};

export interface OfferRow {
  readonly offer_id: string;
  readonly tenant_id: string;
  readonly credential_configuration_id: string;
  readonly status: OfferStatus;
  readonly tx_code_required: number;
  readonly created_at: string;
  readonly expires_at: string;
  readonly ended_at: string | null;
  readonly error_details: string | null;
  readonly claims_purged: number;
}

export const findOffer = (db: SqlReader, tenantId: string, offerId: string) =>
  db.get<OfferRow & Record<string, string | number | null>>('SELECT * FROM offers WHERE offer_id = ? AND tenant_id = ?', [offerId, tenantId]);

/** Open offers whose time-to-live has passed at `now` (ISO 8601). */
export const offersPastExpiry = (db: SqlReader, now: string, limit: number): string[] =>
  (db.all<{ offer_id: string }>(`SELECT offer_id FROM offers WHERE status = 'OFFER_CREATED' AND expires_at <= ? LIMIT ?`, [now, limit])).map(
    (r) => r.offer_id,
  );

/** Ended offers whose data key was not destroyed, ended before `before` (ISO 8601). */
export const offersToPurge = (db: SqlReader, before: string, limit: number): string[] =>
  (
    db.all<{ offer_id: string }>(
      `SELECT offer_id FROM offers WHERE claims_purged = 0 AND ended_at IS NOT NULL AND ended_at <= ? LIMIT ?`,
      [before, limit],
    )
  ).map((r) => r.offer_id);

/** A page of a tenant's offers, newest first (the console's list). */
export const listOffers = (db: SqlReader, query: PageQuery): Page<OfferRow & Row> =>
  keysetPage<OfferRow & Row>(
    db,
    {
      name: 'offers',
      columns: 'offer_id, tenant_id, credential_configuration_id, status, tx_code_required, created_at, expires_at, ended_at, error_details, claims_purged',
      time: 'created_at',
      key: 'offer_id',
    },
    query,
  );

/** Every offer of the tenant, oldest first (what the read model has: no claims). */
export const listTenantOffers = (db: SqlReader, tenantId: string): OfferRow[] =>
  db.all<OfferRow & Record<string, string | number | null>>('SELECT * FROM offers WHERE tenant_id = ? ORDER BY created_at, offer_id', [tenantId]);

/** The tenant whose offer it is, whatever the caller: for the wallet-facing steps, which know only the offer. */
export const findOfferTenant = (db: SqlReader, offerId: string): string | undefined =>
  db.get<{ tenant_id: string }>('SELECT tenant_id FROM offers WHERE offer_id = ?', [offerId])?.tenant_id;
