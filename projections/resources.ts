// Read models of the resource API: the latest revision of every resource (`resources`, also what
// search runs over) and every revision ever written (`resource_revisions`, for history and
// revision reads). Each kind's stream category maps its events to envelope changes
// (streams/resource.ts); the etag is computed from id and revision exactly as the write side does.
import { apiKey, apiKeyResourceChange } from '../streams/apiKey.js';
import { credential, credentialResourceChange } from '../streams/credential.js';
import { didcommMessage, didcommResourceChange } from '../streams/didcommMessage.js';
import { draft, draftResourceChange } from '../streams/draft.js';
import { decodeRecorded, inCategory } from '../streams/event.js';
import { file, fileResourceChange } from '../streams/file.js';
import { SCHEMA_KIND, schema, schemaResourceChange } from '../streams/schema.js';
import { CREDENTIAL_CONFIGURATION_KIND, credentialConfiguration, credentialConfigurationResourceChange } from '../streams/credentialConfiguration.js';
import { SIGNING_KEY_KIND, signingKey, signingKeyResourceChange, type SigningKeyRole } from '../streams/signingKey.js';
import { etagOf, type Envelope, type ResourceChange, type ResourceData, type StringMap } from '../streams/resource.js';
import type { RecordedEvent } from '../streams/kernel.js';
import { presentationResourceChange, verifiablePresentation } from '../streams/verifiablePresentation.js';
import { settingsResourceChange, tenantSettings } from '../streams/tenantSettings.js';
import { tenantVerifier, verifierResourceChange } from '../streams/tenantVerifier.js';
import { change, type Projection, type SqlChange, type SqlReader, type SqlValue } from './projection.js';

/** The stream categories holding resources, and how their events change the envelope. */
const sources: readonly { readonly category: string; readonly changeOf: (recorded: RecordedEvent) => ResourceChange }[] = [
  { category: apiKey.category, changeOf: (recorded) => apiKeyResourceChange(decodeRecorded(apiKey.codec, recorded)) },
  { category: file.category, changeOf: (recorded) => fileResourceChange(decodeRecorded(file.codec, recorded)) },
  { category: credential.category, changeOf: (recorded) => credentialResourceChange(decodeRecorded(credential.codec, recorded)) },
  { category: schema.category, changeOf: (recorded) => schemaResourceChange(decodeRecorded(schema.codec, recorded)) },
  { category: draft.category, changeOf: (recorded) => draftResourceChange(decodeRecorded(draft.codec, recorded)) },
  { category: didcommMessage.category, changeOf: (recorded) => didcommResourceChange(decodeRecorded(didcommMessage.codec, recorded)) },
  { category: verifiablePresentation.category, changeOf: (recorded) => presentationResourceChange(decodeRecorded(verifiablePresentation.codec, recorded)) },
  { category: credentialConfiguration.category, changeOf: (recorded) => credentialConfigurationResourceChange(decodeRecorded(credentialConfiguration.codec, recorded)) },
  { category: signingKey.category, changeOf: (recorded) => signingKeyResourceChange(decodeRecorded(signingKey.codec, recorded)) },
  { category: tenantSettings.category, changeOf: (recorded) => settingsResourceChange(decodeRecorded(tenantSettings.codec, recorded)) },
  { category: tenantVerifier.category, changeOf: (recorded) => verifierResourceChange(decodeRecorded(tenantVerifier.codec, recorded)) },
];

const COLUMNS = `
    tenant_id    TEXT NOT NULL,
    id           TEXT NOT NULL,
    kind         TEXT NOT NULL,
    kind_version INTEGER NOT NULL,
    revision     INTEGER NOT NULL,
    etag         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    modified_at  TEXT NOT NULL,
    deleted_at   TEXT,
    annotations  TEXT NOT NULL,
    labels       TEXT NOT NULL,
    data         TEXT NOT NULL`;

/** `data` members search filters and sorts on, each with an expression index. */
const DATA_INDEXES = ['subject_id', 'expiration', 'digest_multibase', 'filename', 'content_type', 'filesize', 'valid_from', 'valid_until', 'slug'];

export const resourcesProjection: Projection = {
  name: 'resources',
  tables: ['resources', 'resource_revisions', 'resource_metadata'],
  schema: `CREATE TABLE IF NOT EXISTS resources (${COLUMNS},
    PRIMARY KEY (id)
  );
  CREATE INDEX IF NOT EXISTS resources_by_id ON resources (tenant_id, kind, id);
  CREATE INDEX IF NOT EXISTS resources_by_kind ON resources (tenant_id, kind, created_at, id);
  CREATE INDEX IF NOT EXISTS resources_by_modified ON resources (tenant_id, kind, modified_at, id);
  ${DATA_INDEXES.map((member) => `CREATE INDEX IF NOT EXISTS resources_by_${member} ON resources (tenant_id, kind, json_extract(data, '$.${member}'));`).join('\n  ')}
  CREATE TABLE IF NOT EXISTS resource_metadata (
    id     TEXT NOT NULL,
    field  TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (field, key, value, id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS resource_metadata_by_id ON resource_metadata (id);
  CREATE TABLE IF NOT EXISTS resource_revisions (${COLUMNS},
    PRIMARY KEY (id, revision)
  );`,
  apply: (recorded) => {
    const source = sources.find((s) => inCategory(s.category, recorded));
    if (!source) return [];
    const c = source.changeOf(recorded);
    const id = recorded.streamId.slice(source.category.length + 1);
    const revision = recorded.revision + 1;
    const etag = etagOf(id, revision);
    return [...latest(id, revision, etag, c), ...metadata(id, c), change('INSERT INTO resource_revisions SELECT * FROM resources WHERE id = ?', id)];
  },
};

/** Annotations and labels as rows, so that search finds a key-value pair by index, not by a scan. */
const metadata = (id: string, c: ResourceChange): SqlChange[] => {
  const insert = (field: 'annotations' | 'labels', pairs: StringMap): SqlChange[] =>
    Object.entries(pairs).map(([key, value]) => change('INSERT INTO resource_metadata (id, field, key, value) VALUES (?, ?, ?, ?)', id, field, key, value));
  const replace = (field: 'annotations' | 'labels', pairs: StringMap): SqlChange[] => [
    change('DELETE FROM resource_metadata WHERE id = ? AND field = ?', id, field),
    ...insert(field, pairs),
  ];
  switch (c.op) {
    case 'created':
      return [...insert('annotations', c.annotations), ...insert('labels', c.labels)];
    case 'annotations':
      return replace('annotations', c.annotations);
    case 'labels':
      return replace('labels', c.labels);
    default:
      return [];
  }
};

const latest = (id: string, revision: number, etag: string, c: ResourceChange): SqlChange[] => {
  const version = [revision, etag, c.at];
  switch (c.op) {
    case 'created':
      return [
        change(
          `INSERT INTO resources (tenant_id, id, kind, kind_version, revision, etag, created_at, modified_at, deleted_at, annotations, labels, data)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
          c.tenantId, id, c.kind.name, c.kind.version, revision, etag, c.at, c.at,
          JSON.stringify(c.annotations), JSON.stringify(c.labels), JSON.stringify(c.data),
        ),
      ];
    case 'annotations':
      return [change('UPDATE resources SET revision = ?, etag = ?, modified_at = ?, annotations = ? WHERE id = ?', ...version, JSON.stringify(c.annotations), id)];
    case 'labels':
      return [change('UPDATE resources SET revision = ?, etag = ?, modified_at = ?, labels = ? WHERE id = ?', ...version, JSON.stringify(c.labels), id)];
    case 'deleted':
      return [change('UPDATE resources SET revision = ?, etag = ?, modified_at = ?, deleted_at = ? WHERE id = ?', ...version, c.at, id)];
    case 'restored':
      return [change('UPDATE resources SET revision = ?, etag = ?, modified_at = ?, deleted_at = NULL WHERE id = ?', ...version, id)];
    case 'replaced':
      return [change('UPDATE resources SET revision = ?, etag = ?, modified_at = ?, data = ? WHERE id = ?', ...version, JSON.stringify(c.data), id)];
    case 'data': {
      // A top-level merge, as applyChange does: json_set per member (json_patch would merge deeply).
      const members = Object.entries(c.data);
      if (members.length === 0) return [change('UPDATE resources SET revision = ?, etag = ?, modified_at = ? WHERE id = ?', ...version, id)];
      return [
        change(
          `UPDATE resources SET revision = ?, etag = ?, modified_at = ?, data = json_set(data, ${members.map(() => '?, json(?)').join(', ')}) WHERE id = ?`,
          ...version,
          ...members.flatMap(([member, value]) => [`$.${JSON.stringify(member)}`, JSON.stringify(value)]),
          id,
        ),
      ];
    }
  }
};

export interface ResourceRow {
  readonly [column: string]: SqlValue;
  readonly tenant_id: string;
  readonly id: string;
  readonly kind: string;
  readonly kind_version: number;
  readonly revision: number;
  readonly etag: string;
  readonly created_at: string;
  readonly modified_at: string;
  readonly deleted_at: string | null;
  readonly annotations: string;
  readonly labels: string;
  readonly data: string;
}

export const envelopeOfRow = (row: ResourceRow): Envelope => ({
  id: row.id,
  tenantId: row.tenant_id,
  kind: { name: row.kind, version: row.kind_version },
  revision: row.revision,
  createdAt: row.created_at,
  modifiedAt: row.modified_at,
  deletedAt: row.deleted_at,
  annotations: JSON.parse(row.annotations) as StringMap,
  labels: JSON.parse(row.labels) as StringMap,
  data: JSON.parse(row.data) as ResourceData,
});

/** Where one tenant's resource of one kind is found; another tenant's id finds nothing. */
export interface ResourceAddress {
  readonly tenantId: string;
  readonly kind: string;
  readonly id: string;
}

export const findLatest = (db: SqlReader, a: ResourceAddress): Envelope | undefined => {
  const row = db.get<ResourceRow>('SELECT * FROM resources WHERE id = ? AND tenant_id = ? AND kind = ?', [a.id, a.tenantId, a.kind]);
  return row && envelopeOfRow(row);
};

/** Every revision, oldest first; empty when the tenant has no such resource. */
export const findHistory = (db: SqlReader, a: ResourceAddress): Envelope[] =>
  (
    db.all<ResourceRow>('SELECT * FROM resource_revisions WHERE id = ? AND tenant_id = ? AND kind = ? ORDER BY revision', [
      a.id, a.tenantId, a.kind,
    ])
  ).map(envelopeOfRow);

export const findRevision = (db: SqlReader, a: ResourceAddress, revision: number): Envelope | undefined => {
  const row = db.get<ResourceRow>('SELECT * FROM resource_revisions WHERE id = ? AND revision = ? AND tenant_id = ? AND kind = ?', [
    a.id, revision, a.tenantId, a.kind,
  ]);
  return row && envelopeOfRow(row);
};

/** The tenant's live resources of `kinds` whose `data.digest_multibase` is `digest`, by id. */
export const findLiveByDigest = (db: SqlReader, tenantId: string, kinds: readonly [string, string], digest: string): { readonly id: string; readonly kind: string }[] =>
  db.all<{ id: string; kind: string }>(
    "SELECT id, kind FROM resources WHERE tenant_id = ? AND kind IN (?, ?) AND deleted_at IS NULL AND json_extract(data, '$.digest_multibase') = ? ORDER BY id",
    [tenantId, ...kinds, digest],
  );

/** Whether the tenant has a live schema of this slug and version. */
export const liveSchemaExists = (db: SqlReader, tenantId: string, slug: string, version: string): boolean =>
  db.get(
    "SELECT id FROM resources WHERE tenant_id = ? AND kind = ? AND deleted_at IS NULL AND json_extract(data, '$.slug') = ? AND json_extract(data, '$.version') = ?",
    [tenantId, SCHEMA_KIND.name, slug, version],
  ) !== undefined;

/** A published schema, whatever its tenant: its URL is public. */
export const findPublishedSchema = (db: SqlReader, id: string): Envelope | undefined => {
  const row = db.get<ResourceRow>("SELECT * FROM resources WHERE id = ? AND kind = ? AND json_extract(data, '$.published_at') IS NOT NULL", [id, SCHEMA_KIND.name]);
  return row && envelopeOfRow(row);
};

/** Whether `url` is the URL of one of the tenant's published schemas. */
export const isPublishedSchemaUrl = (db: SqlReader, tenantId: string, url: string): boolean =>
  db.get(
    "SELECT id FROM resources WHERE tenant_id = ? AND kind = ? AND json_extract(data, '$.url') = ? AND json_extract(data, '$.published_at') IS NOT NULL",
    [tenantId, SCHEMA_KIND.name, url],
  ) !== undefined;

/** Every resource of the tenant, latest revision, by kind then creation. */
export const findTenantResources = (db: SqlReader, tenantId: string): Envelope[] =>
  db.all<ResourceRow>('SELECT * FROM resources WHERE tenant_id = ? ORDER BY kind, created_at, id', [tenantId]).map(envelopeOfRow);


/** The tenant's live credential configurations, latest revision, oldest first (by the index on tenant, kind and creation). */
export const findLiveCredentialConfigurations = (db: SqlReader, tenantId: string): Envelope[] =>
  db
    .all<ResourceRow>('SELECT * FROM resources WHERE tenant_id = ? AND kind = ? AND deleted_at IS NULL ORDER BY created_at, id', [tenantId, CREDENTIAL_CONFIGURATION_KIND.name])
    .map(envelopeOfRow);

/** The revision each of the tenant's live credential configurations is at, by resource id (what TenantConfigurations reads per offer). */
export const liveCredentialConfigurationRevisions = (db: SqlReader, tenantId: string): { readonly id: string; readonly revision: number }[] =>
  db.all<{ id: string; revision: number }>('SELECT id, revision FROM resources WHERE tenant_id = ? AND kind = ? AND deleted_at IS NULL ORDER BY created_at, id', [
    tenantId,
    CREDENTIAL_CONFIGURATION_KIND.name,
  ]);
/** The tenant's resources of one kind, latest revision, oldest first. */
export const findTenantResourcesOfKind = (db: SqlReader, tenantId: string, kind: string): Envelope[] =>
  db.all<ResourceRow>('SELECT * FROM resources WHERE tenant_id = ? AND kind = ? ORDER BY created_at, id', [tenantId, kind]).map(envelopeOfRow);

/**
 * The tenant's active, live signing key of `role`. Activation retires the key it replaces in a
 * second step; should that step not have happened yet, the key activated last is the active one.
 */
export const findActiveSigningKey = (db: SqlReader, tenantId: string, role: SigningKeyRole): Envelope | undefined => {
  const row = db.get<ResourceRow>(
    `SELECT * FROM resources WHERE tenant_id = ? AND kind = ? AND deleted_at IS NULL
       AND json_extract(data, '$.state') = 'active' AND json_extract(data, '$.role') = ?
     ORDER BY json_extract(data, '$.activated_at') DESC, id LIMIT 1`,
    [tenantId, SIGNING_KEY_KIND.name, role],
  );
  return row && envelopeOfRow(row);
};

/** The tenant's active, live signing keys of `role` other than `keyId`: those its activation retires. */
export const findOtherActiveSigningKeys = (db: SqlReader, tenantId: string, role: SigningKeyRole, keyId: string): string[] =>
  db
    .all<{ id: string }>(
      `SELECT id FROM resources WHERE tenant_id = ? AND kind = ? AND id <> ? AND deleted_at IS NULL
         AND json_extract(data, '$.state') = 'active' AND json_extract(data, '$.role') = ? ORDER BY id`,
      [tenantId, SIGNING_KEY_KIND.name, keyId, role],
    )
    .map((row) => row.id);
