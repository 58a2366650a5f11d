// Read model of each tenant's callback configuration: where its deliveries go, and the sealed
// signing secret (opened only by the deliverer, with the key-encryption key).
import { isRight } from 'fp-ts/lib/Either.js';
import { Sealed } from '../streams/dataKey.js';
import { decodeRecorded, inCategory } from '../streams/event.js';
import { tenant, type TenantCallback } from '../streams/tenant.js';
import { change, type Projection, type SqlReader } from './projection.js';

export const tenantCallbacksProjection: Projection = {
  name: 'tenant_callbacks',
  tables: ['tenant_callbacks'],
  schema: `CREATE TABLE IF NOT EXISTS tenant_callbacks (
    tenant_id     TEXT PRIMARY KEY,
    url           TEXT NOT NULL,
    secret        TEXT NOT NULL,
    configured_at TEXT NOT NULL
  );`,
  apply: (recorded) => {
    if (!inCategory(tenant.category, recorded)) return [];
    const event = decodeRecorded(tenant.codec, recorded);
    if (event.type !== 'TenantCallbackConfigured') return [];
    const { tenantId, url, secret, configuredAt } = event.data;
    return [
      change(
        `INSERT INTO tenant_callbacks (tenant_id, url, secret, configured_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, configured_at = excluded.configured_at`,
        tenantId, url, JSON.stringify(secret), configuredAt,
      ),
    ];
  },
};

export const findTenantCallback = (db: SqlReader, tenantId: string): TenantCallback | undefined => {
  const row = db.get<{ url: string; secret: string }>('SELECT url, secret FROM tenant_callbacks WHERE tenant_id = ?', [tenantId]);
  if (!row) return undefined;
  const secret = Sealed.decode(JSON.parse(row.secret));
  if (!isRight(secret)) throw new Error(`tenant_callbacks row of ${tenantId} holds no sealed secret`);
  return { url: row.url, secret: secret.right };
};
