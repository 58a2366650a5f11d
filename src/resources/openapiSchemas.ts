// The resource API's shapes (the resource API specification, "Resources and their fields"): the
// envelope every kind shares, each kind's `data`, and search bodies built from the kinds' own
// search definitions (src/resources/), so the document cannot offer a filter the service refuses.
import { MAX_REVISION } from '../../streams/resource.js';
import { ENVELOPE_SORTS, MAX_SEARCH_ITEMS, type DataFilter, type DataSearch } from './search.js';
import { anyJson, arrayOf, dateTime, nullable, object, ref, string, stringMap, uuid } from '../http/openapi/components.js';
import type { Reference, Schema } from '../http/openapi/types.js';

const DigestMultibase = string('`z` + base58btc of the sha2-256 multihash of the bytes.', { pattern: '^z[1-9A-HJ-NP-Za-km-z]+$' });
const Ref = object({ digest_multibase: string(), resource_id: uuid() });
const ClaimKind = { enum: ['STRING', 'NUMBER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'] };
const KindedValue = object({ kind: ClaimKind, value: anyJson('The value, of that kind.') }, {}, 'A claim value and its kind.');
const KindedValues = { type: 'object', additionalProperties: ref.schema('KindedValue'), description: 'Claim name -> `{kind, value}`.' };

/** The envelope of a kind: `data` is the kind's own. */
export const envelope = (kindName: string, data: Schema | Reference, description: string): Schema =>
  object(
    {
      id: uuid(),
      kind: object({ name: { const: kindName }, version: { const: 1 } }),
      revision: { type: 'integer', minimum: 1, maximum: MAX_REVISION, description: '1 on create, +1 for every change (delete and restore included).' },
      etag: string('Strong and quoted, different for every revision; the same as the `ETag` header.'),
      created_at: dateTime(),
      modified_at: dateTime('The time of the latest revision.'),
      deleted_at: nullable(dateTime()),
      annotations: stringMap('Operator metadata, recorded in the clear: no personal data.'),
      labels: stringMap('Operator metadata, recorded in the clear: no personal data.'),
      data,
    },
    {},
    description,
  );

const Between = object({ operator: { const: 'BETWEEN' }, left: dateTime(), right: dateTime() }, {}, 'Inclusive; RFC 3339 with an offset.');
const equal = (value: Schema): Schema => object({ operator: { const: 'EQUAL' }, value });
const KeyValues = arrayOf(object({ operator: { const: 'EQUAL' }, key: string(), value: string() }), { description: 'Every pair must be present.' });

const closed = (schema: Schema): Schema => ({ ...schema, additionalProperties: false });

const envelopeFilterFields = {
  annotations: KeyValues,
  labels: KeyValues,
  created_at: Between,
  modified_at: Between,
  deleted_at: { ...Between, description: 'Deleted resources are left out unless a filter item has `deleted_at`.' },
  etag: equal(string()),
  id: equal(uuid()),
  revision: equal({ type: 'integer' }),
};

const dataFilter = (filter: DataFilter): Schema | Reference => {
  if (typeof filter === 'object') return ref.schema('EnvelopeFilter');
  switch (filter) {
    case 'EQUAL_STRING':
      return equal(string());
    case 'EQUAL_INTEGER':
      return equal({ type: 'integer' });
    case 'BETWEEN_DATE_TIME':
      return Between;
    case 'IN_STRINGS':
      return object({ operator: { const: 'IN' }, values: arrayOf(string()) }, {}, 'Any element among the values.');
  }
};

/** `POST /{kind}/search`'s body for a kind searching `data` as `search` says. */
export const searchBody = (search: DataSearch): Schema => {
  const dataFields = Object.entries(search.filters);
  const filterItem = closed(
    object(
      {},
      {
        ...envelopeFilterFields,
        ...(dataFields.length > 0 ? { data: closed(object({}, Object.fromEntries(dataFields.map(([name, filter]) => [name, dataFilter(filter)])))) } : {}),
      },
      'Fields are ANDed; a field the kind does not filter on is 400.',
    ),
  );
  const sortItem = object({ field: { enum: [...Object.keys(ENVELOPE_SORTS), ...Object.keys(search.sorts)] }, order: { enum: ['ASC', 'DESC'] } });
  return object(
    {},
    {
      filter: arrayOf(filterItem, { maxItems: MAX_SEARCH_ITEMS, description: 'Items are ANDed.' }),
      sort: arrayOf(sortItem, { maxItems: MAX_SEARCH_ITEMS, description: 'Without sort items the order is by id; id always breaks ties.' }),
    },
  );
};

const DraftCommon = {
  type: arrayOf(string()),
  linked_credential_refs: arrayOf(object({ digest_multibase: string(), resource_id: string() }), { description: 'Recorded as given.' }),
  linked_draft_refs: arrayOf(object({ resource_id: string() }), { description: 'Recorded as given.' }),
  json_ld_vocabs: arrayOf(string(undefined, { format: 'uri' })),
  vcdm_json_schemas: arrayOf(string(undefined, { format: 'uri' })),
};
const DraftMeta = object({}, { subject: string(), valid_from: dateTime(), valid_until: dateTime() });
const DraftValues038 = { type: 'object', additionalProperties: anyJson('The plain value.'), description: 'Claim name -> plain value (0.38 line).' };
const TemporarySchema = object({ schema: { type: 'object' } }, { slug: string(), version: string() });

const draftData = (line: '0.40' | '0.38'): Schema =>
  line === '0.40'
    ? object({ ...DraftCommon, meta_schema: nullable(string()), meta: DraftMeta, values: KindedValues }, {}, 'A draft as the 0.40 line shows it (no `schema`).')
    : object(
        { ...DraftCommon, meta_schema: nullable(string()), meta: DraftMeta, values: DraftValues038, schema: nullable({ type: 'object' }) },
        {},
        'A draft as the 0.38 line (`X-Service-OAS-Version: 0.38.2`) shows it.',
      );

/** A draft's `data` in a request: `values` as the line writes them, and the members only some requests take. */
const draftRequest = (values: Schema, required: Readonly<Record<string, Schema>>, own: Readonly<Record<string, Schema>>): Schema =>
  object(required, { ...DraftCommon, meta: DraftMeta, values, ...own });

const DidDocument = object({
  '@context': arrayOf(string()),
  id: string('`did:web:<PUBLIC_URL host, port as %3A>[:<path segments>]:tenants:<tenant id>`.', { pattern: '^did:web:' }),
  verificationMethod: arrayOf(
    object({
      id: string(),
      type: { const: 'JsonWebKey2020' },
      controller: string(),
      publicKeyJwk: {
        oneOf: [
          object({ kty: { const: 'EC' }, crv: { const: 'P-256' }, x: string(), y: string() }, {}, 'The DID key (`#key-1`), for authentication and assertion.'),
          object({ kty: { const: 'OKP' }, crv: { const: 'X25519' }, x: string() }, {}, 'The DIDComm key-agreement key (`#key-agreement-1`): the sender key of every DIDComm message the tenant sends.'),
        ],
      },
    }),
  ),
  authentication: arrayOf(string()),
  assertionMethod: arrayOf(string()),
  keyAgreement: arrayOf(string()),
});

const embedded = (kind: string): Schema => object({ items: arrayOf(ref.schema(kind)) }, {}, 'The envelopes as they were when the message was sent.');

export const resourceSchemas: Readonly<Record<string, Schema>> = {
  EnvelopeFilter: closed(object({}, envelopeFilterFields, 'Envelope fields of the linked resources; at least one must match.')),
  KindedValue,
  ResourceRef: Ref,
  Annotations: object({ annotations: stringMap('Replaces every annotation.') }),
  Labels: object({ labels: stringMap('Replaces every label.') }),
  CreateEnvelope: object({}, { annotations: stringMap('Annotations of the new resource.'), labels: stringMap('Labels of the new resource.') }),
  Upload: object({
    blob_id: uuid(),
    upload_uri: string('Pre-signed URL on the public listener: PUT the bytes there within `timeout` seconds.', { format: 'uri' }),
    timeout: { type: 'integer', minimum: 1, description: 'Seconds (BLOB_UPLOAD_TIMEOUT_SECONDS).' },
  }),
  UploadedBlob: object({ blob_id: uuid(), digest_multibase: DigestMultibase, filesize: { type: 'integer', minimum: 0 } }),

  ApiKeyData: object({ expiration: nullable(dateTime('null: the key does not expire.')), subject_id: uuid() }),
  ApiKey: envelope('api-key', ref.schema('ApiKeyData'), 'An API key: the same keys that authenticate this API. Reads never carry the secret.'),
  CreatedApiKey: envelope(
    'api-key',
    object({ expiration: nullable(dateTime()), subject_id: uuid(), secret: string('`ck_` + 256 random bits: shown in this answer only.') }),
    'The new key, with its secret.',
  ),

  FileData: object({ content_type: string(), digest_multibase: DigestMultibase, filename: string(undefined, { minLength: 1, maxLength: 255 }), filesize: { type: 'integer', minimum: 0 } }),
  File: envelope('file', ref.schema('FileData'), 'A file: an uploaded blob and what describes it.'),
  CreateFile: object({}, {
    annotations: stringMap('Annotations of the new file.'),
    labels: stringMap('Labels of the new file.'),
    data: object({}, {
      filename: string('1-255 characters without `/` or `\\`; default the blob id.', { minLength: 1, maxLength: 255 }),
      content_type: string('Default: the upload\'s media type, else `application/octet-stream`.'),
    }),
  }),

  CredentialData: object({
    data_model: object({
      flavor_name: { enum: ['VC1_1', 'VC2_0'] },
      issuanceDate: nullable(string()),
      expirationDate: nullable(string()),
      proof: nullable(object({ id: nullable(string()), type: string() }, {}, 'The first proof\'s id and type; the proof is not verified.')),
      type: arrayOf(string()),
    }),
    digest_multibase: DigestMultibase,
    linked_credential_refs: arrayOf(ref.schema('ResourceRef')),
    linked_file_refs: arrayOf(ref.schema('ResourceRef')),
    type: arrayOf(string()),
    valid_from: nullable(dateTime()),
    valid_until: nullable(dateTime()),
  }),
  Credential: envelope('credential', ref.schema('CredentialData'), 'An imported W3C Verifiable Credential (its claims stay in the blob).'),

  SchemaData: object({
    slug: string(undefined, { pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }),
    version: string(undefined, { pattern: '^[A-Za-z0-9][A-Za-z0-9.+-]{0,31}$' }),
    schema: { type: 'object', description: 'The ClaimsSchema, kept as given.' },
    published_at: nullable(dateTime()),
    url: nullable(string('`{PUBLIC_URL}/published-schemas/{id}` once published.', { format: 'uri' })),
  }),
  Schema: envelope('schema', ref.schema('SchemaData'), 'A ClaimsSchema; once published, immutable and served publicly.'),
  CreateSchema: object(
    {
      data: object({
        slug: string('1-64 of `a-z`, `0-9`, `-`.', { pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }),
        version: string('1-32 of letters, digits, `.`, `+`, `-`.', { pattern: '^[A-Za-z0-9][A-Za-z0-9.+-]{0,31}$' }),
        schema: { type: 'object', description: 'The ClaimsSchema: any JSON object.' },
      }),
    },
    { annotations: stringMap('Annotations.'), labels: stringMap('Labels.') },
  ),
  PublishedSchema: object({ slug: string(), version: string(), schema: { type: 'object' } }),

  Draft: envelope('draft', { anyOf: [draftData('0.40'), draftData('0.38')] }, 'Unsigned credential data; `values` and `meta` are sealed at rest.'),
  CreateDraft: object(
    {
      data: {
        anyOf: [
          draftRequest(KindedValues, {}, { meta_schema: string('The `url` of a published schema of the tenant.'), schema: TemporarySchema }),
          draftRequest(DraftValues038, { schema: { type: 'object' } }, {}),
        ],
        description: '0.40: exactly one of `meta_schema` and `schema`; 0.38 (`X-Service-OAS-Version: 0.38.2`): `schema` required, plain `values`.',
      },
    },
    { annotations: stringMap('Annotations.'), labels: stringMap('Labels.') },
  ),
  UpdateDraft: object({ data: { anyOf: [draftRequest(KindedValues, {}, {}), draftRequest(DraftValues038, {}, {})], description: 'Each member given replaces that member.' } }),
  ExportDraft: object({ issuer: string(undefined, { format: 'uri' }) }, { valid_from: dateTime(), valid_until: dateTime() }),

  SupportRequest: object({ type: { enum: ['DATA_DUMP', 'DELETION', 'OTHER', 'RECTIFICATION'] }, message: string('Not blank; sealed at rest.', { minLength: 1 }) }),
  CreatedSupportRequest: object({ id: uuid(), type: { enum: ['DATA_DUMP', 'DELETION', 'OTHER', 'RECTIFICATION'] }, created_at: dateTime() }),
  SupportRequestView: object(
    {
      id: uuid(),
      type: { enum: ['DATA_DUMP', 'DELETION', 'OTHER', 'RECTIFICATION'] },
      status: { enum: ['OPEN', 'IN_PROGRESS', 'DONE', 'REJECTED'] },
      message: nullable(string('As sent; null once the request\'s data key is gone.')),
      note: nullable(string('The operator\'s latest note: what was done, or why not.')),
      created_at: dateTime(),
      modified_at: dateTime(),
      transitions: arrayOf(object({ status: { enum: ['OPEN', 'IN_PROGRESS', 'DONE', 'REJECTED'] }, at: dateTime(), note: nullable(string()) }), { description: 'Every state the request entered, oldest first.' }),
      export: nullable(
        object(
          {
            available: { type: 'boolean', description: 'Whether `GET /support-requests/{id}/export` answers the archive (false once deleted).' },
            expires_at: nullable(dateTime('When the archive is deleted (SUPPORT_EXPORT_RETENTION_SECONDS after it was made).')),
            files: { type: 'integer', minimum: 1 },
            bytes: { type: 'integer', minimum: 0 },
            manifest_sha256: string('SHA-256 (hex) of the archive\'s manifest.json.'),
          },
          {},
          'DATA_DUMP, once exported.',
        ),
      ),
      erasure: nullable(
        object(
          { resources: { type: 'integer', minimum: 0 }, data_keys: { type: 'integer', minimum: 0 }, blobs: { type: 'integer', minimum: 0 }, api_keys: { type: 'integer', minimum: 0 } },
          {},
          'DELETION, once erased: what the erasure counted.',
        ),
      ),
    },
    {},
    'A support request as its tenant reads it.',
  ),

  PresentationData: object({
    digest_multibase: DigestMultibase,
    linked_credential_refs: arrayOf(ref.schema('ResourceRef'), { description: 'The credentials the presentation holds, in order.' }),
    type: arrayOf(string(), { description: '`VerifiablePresentation` first.' }),
  }),
  Presentation: envelope('presentation', ref.schema('PresentationData'), 'An unsigned W3C Verifiable Presentation (data model 1.1) of the tenant\'s credentials; the presentation is the content, `GET /presentations/{id}/content`.'),
  CreatePresentation: object(
    { credentials: arrayOf(uuid(), { minItems: 1, maxItems: 100, description: 'Live credentials of the tenant, presented in this order.' }) },
    { type: arrayOf(string(), { description: 'More types after `VerifiablePresentation`.' }), annotations: stringMap('Annotations.'), labels: stringMap('Labels.') },
  ),

  DidcommMessage: envelope(
    'didcomm-message',
    object({
      from: string('The tenant\'s DID.'),
      to: nullable(string('The recipient; null once its data key is gone.')),
      credentials: embedded('Credential'),
      files: embedded('File'),
      presentations: embedded('Presentation'),
      delivery: nullable(
        object(
          {
            status: { enum: ['pending', 'delivered', 'abandoned'] },
            attempts: { type: 'integer', minimum: 0 },
            last_attempt_at: nullable(dateTime()),
            last_error: nullable(string('The last failed attempt: its reason (`http_status`, `timeout`, `network`, `unresolvable`, `endpoint_refused`) and a short technical detail; null once delivered.')),
          },
          {},
          'The delivery to the recipient as it stands when read: not part of the revision, so the etag does not change with it. Null for a message recorded before the connector delivered messages.',
        ),
      ),
    }),
    'A DIDComm message, packed as the tenant and delivered to the recipient\'s DIDComm service endpoint.',
  ),
  SendDidcommMessage: object(
    {
      data: object(
        { to: string('The recipient: a `did:peer:2` (with a key-agreement key and a DIDCommMessaging service) or a `did:web`.', { minLength: 1 }), key_id: uuid() },
        { credentials: arrayOf(uuid()), files: arrayOf(uuid()), presentations: arrayOf(uuid()), disable_transitive_closure: { type: 'boolean', default: false } },
      ),
    },
    { annotations: stringMap('Annotations.'), labels: stringMap('Labels.') },
  ),

  DidDocument,
};
