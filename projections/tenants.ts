// Read model of tenants, for the ops tool and for "has the store any tenant yet?".
import { decodeRecorded, inCategory } from '../streams/event.js';
import { tenant } from '../streams/tenant.js';
import { change, type Projection, type SqlReader } from './projection.js';

export const tenantsProjection: Projection = {
  name: 'tenants',
  tables: ['tenants'],
  schema: `CREATE TABLE IF NOT EXISTS tenants (
    tenant_id  TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL
  );`,
  apply: (recorded) => {
    if (!inCategory(tenant.category, recorded)) return [];
    const event = decodeRecorded(tenant.codec, recorded);
    if (event.type !== 'TenantCreated') return [];
    return [change('INSERT INTO tenants (tenant_id, name, created_at) VALUES (?, ?, ?)', event.data.tenantId, event.data.name, event.data.createdAt)];
  },
};

export interface TenantRow {
  readonly tenant_id: string;
  readonly name: string;
  readonly created_at: string;
}

export const countTenants = (db: SqlReader): number =>
  Number((db.get<{ n: number }>('SELECT COUNT(*) AS n FROM tenants'))?.n ?? 0);

export const findTenant = (db: SqlReader, tenantId: string) =>
  db.get<TenantRow & Record<string, string>>('SELECT * FROM tenants WHERE tenant_id = ?', [tenantId]);

/** Every tenant, oldest first. */
export const listTenants = (db: SqlReader): TenantRow[] =>
  db.all<TenantRow & Record<string, string>>('SELECT tenant_id, name, created_at FROM tenants ORDER BY created_at, tenant_id');
