// Read model of API keys for authentication: found by the hash of the presented secret.
import { apiKey, Scope } from '../streams/apiKey.js';
import { decodeRecorded, inCategory } from '../streams/event.js';
import { change, type Projection, type SqlReader } from './projection.js';

export const apiKeysProjection: Projection = {
  name: 'api_keys',
  tables: ['api_keys'],
  schema: `CREATE TABLE IF NOT EXISTS api_keys (
    key_id      TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL,
    subject_id  TEXT NOT NULL,
    secret_hash TEXT NOT NULL UNIQUE,
    scopes      TEXT NOT NULL,
    expiration  TEXT,
    created_at  TEXT NOT NULL,
    deleted_at  TEXT
  );`,
  apply: (recorded) => {
    if (!inCategory(apiKey.category, recorded)) return [];
    const event = decodeRecorded(apiKey.codec, recorded);
    switch (event.type) {
      case 'ApiKeyCreated': {
        const d = event.data;
        return [
          change(
            `INSERT INTO api_keys (key_id, tenant_id, subject_id, secret_hash, scopes, expiration, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
            d.keyId, d.tenantId, d.subjectId, d.secretHash, JSON.stringify(d.scopes), d.expiration, d.createdAt,
          ),
        ];
      }
      case 'ApiKeyDeleted':
        return [change('UPDATE api_keys SET deleted_at = ? WHERE key_id = ?', event.data.deletedAt, event.data.keyId)];
      case 'ApiKeyRestored':
        return [change('UPDATE api_keys SET deleted_at = NULL WHERE key_id = ?', event.data.keyId)];
      case 'ApiKeyAnnotationsUpdated':
      case 'ApiKeyLabelsUpdated':
        // Authentication does not look at user metadata; the resource views have it.
        return [];
    }
  },
};

export interface ApiKeyRow {
  readonly keyId: string;
  readonly tenantId: string;
  readonly secretHash: string;
  readonly scopes: readonly Scope[];
  readonly expiration: string | null;
  readonly deletedAt: string | null;
}

/** The scopes column, as recorded. */
const scopesOf = (column: string): Scope[] => (JSON.parse(column) as unknown[]).filter(Scope.is);

export const findApiKeyBySecretHash = (db: SqlReader, secretHash: string): ApiKeyRow | undefined => {
  const row = db.get<{
    key_id: string; tenant_id: string; secret_hash: string; scopes: string; expiration: string | null; deleted_at: string | null;
  }>('SELECT key_id, tenant_id, secret_hash, scopes, expiration, deleted_at FROM api_keys WHERE secret_hash = ?', [secretHash]);
  if (!row) return undefined;
  return {
    keyId: row.key_id,
    tenantId: row.tenant_id,
    secretHash: row.secret_hash,
    scopes: scopesOf(row.scopes),
    expiration: row.expiration,
    deletedAt: row.deleted_at,
  };
};

/** What an operator may see of a key: never its secret, nor the secret's hash. */
export interface ApiKeyListing {
  readonly api_key_id: string;
  readonly tenant_id: string;
  readonly scopes: readonly Scope[];
  readonly expiration: string | null;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

/** Keys, revoked ones included, oldest first; of one tenant when given. */
export const listApiKeys = (db: SqlReader, filter: { readonly tenantId?: string | undefined }): ApiKeyListing[] =>
  db
    .all<{ key_id: string; tenant_id: string; scopes: string; expiration: string | null; created_at: string; deleted_at: string | null }>(
      `SELECT key_id, tenant_id, scopes, expiration, created_at, deleted_at FROM api_keys
       ${filter.tenantId === undefined ? '' : 'WHERE tenant_id = ?'} ORDER BY created_at, key_id`,
      filter.tenantId === undefined ? [] : [filter.tenantId],
    )
    .map((row) => ({
      api_key_id: row.key_id,
      tenant_id: row.tenant_id,
      scopes: scopesOf(row.scopes),
      expiration: row.expiration,
      created_at: row.created_at,
      revoked_at: row.deleted_at,
    }));
