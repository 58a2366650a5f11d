// Read model of uploads: which tenant uploaded which content (`digest_multibase`), used or not.
// The erasure of a tenant's data (src/resources/tenantErasure.ts) removes the blobs only its
// uploads and resources name; the ops tool builds it for the occasion (ops/freshReadModels.ts).
import { blob } from '../streams/blob.js';
import { decodeRecorded, inCategory } from '../streams/event.js';
import { change, type Projection, type SqlReader } from './projection.js';

export const blobUploadsProjection: Projection = {
  name: 'blob_uploads',
  tables: ['blob_uploads'],
  schema: `CREATE TABLE IF NOT EXISTS blob_uploads (
    blob_id   TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    digest    TEXT
  );
  CREATE INDEX IF NOT EXISTS blob_uploads_by_digest ON blob_uploads (digest, tenant_id);`,
  apply: (recorded) => {
    if (!inCategory(blob.category, recorded)) return [];
    const event = decodeRecorded(blob.codec, recorded);
    switch (event.type) {
      case 'BlobUploadRequested':
        return [change('INSERT INTO blob_uploads (blob_id, tenant_id) VALUES (?, ?)', event.data.blobId, event.data.tenantId)];
      case 'BlobUploaded':
        return [change('UPDATE blob_uploads SET digest = ? WHERE blob_id = ?', event.data.digestMultibase, event.data.blobId)];
      case 'BlobUsed':
        return [];
    }
  },
};

/** The digests of everything the tenant uploaded. */
export const tenantUploadDigests = (db: SqlReader, tenantId: string): string[] =>
  db.all<{ digest: string }>('SELECT DISTINCT digest FROM blob_uploads WHERE tenant_id = ? AND digest IS NOT NULL', [tenantId]).map((r) => r.digest);

/** Whether another tenant than `tenantId` uploaded `digest`. */
export const uploadHeldByAnother = (db: SqlReader, tenantId: string, digest: string): boolean =>
  db.get('SELECT blob_id FROM blob_uploads WHERE digest = ? AND tenant_id <> ? LIMIT 1', [digest, tenantId]) !== undefined;
