// The platform resource API (src/resources/): every kind's shared routes, as
// src/resources/routes.ts mounts them, and each kind's own; the public routes for uploads,
// published schemas and DID documents.
import type { Scope } from '../../../streams/apiKey.js';
import { apiKeysKind } from '../../resources/apiKeys.js';
import { credentialsKind } from '../../resources/credentials.js';
import { FILE_SEARCH } from '../../resources/files.js';
import { schemasKind } from '../../resources/schemas.js';
import { ENVELOPE_ONLY, SEARCH_LIMIT, type DataSearch } from '../../resources/search.js';
import {
  apiKey,
  arrayOf,
  json,
  jsonBody,
  managementAnswers,
  mergePaths,
  noAuthentication,
  object,
  operation,
  pathParameter,
  queryParameter,
  ref,
  resourceAnswers,
  string,
  uuid,
  type ProblemStatus,
} from './components.js';
import { resourceSchemas, searchBody } from './resourceSchemas.js';
import type { Area, Content, Operation, Parameter, Paths, Reference, Response, Schema } from './types.js';


interface KindDocument {
  /** The path segment: `/api-keys/...`. */
  readonly path: string;
  /** The envelope's component, singular (`ApiKey`); operation ids are made from it. */
  readonly schema: string;
  readonly plural: string;
  /** One of the kind, in prose: `an API key`. */
  readonly one: string;
  readonly scope: Scope;
  readonly search: DataSearch;
}

const KINDS: readonly KindDocument[] = [
  { path: apiKeysKind.path, schema: 'ApiKey', plural: 'ApiKeys', one: 'an API key', scope: apiKeysKind.scope, search: apiKeysKind.search },
  { path: 'files', schema: 'File', plural: 'Files', one: 'a file', scope: 'resources', search: FILE_SEARCH },
  { path: credentialsKind.path, schema: 'Credential', plural: 'Credentials', one: 'a credential', scope: credentialsKind.scope, search: credentialsKind.search },
  { path: schemasKind.path, schema: 'Schema', plural: 'Schemas', one: 'a schema', scope: schemasKind.scope, search: schemasKind.search },
  { path: 'drafts', schema: 'Draft', plural: 'Drafts', one: 'a draft', scope: 'resources', search: ENVELOPE_ONLY },
  { path: 'didcomm-messages', schema: 'DidcommMessage', plural: 'DidcommMessages', one: 'a DIDComm message', scope: 'resources', search: ENVELOPE_ONLY },
];

const tagOf = (path: string): string => `resources: ${path}`;

const answerHeaders = {
  etag: { ETag: ref.header('ETag') },
  written: { ETag: ref.header('ETag'), 'Idempotent-Replayed': ref.header('IdempotentReplayed') },
  created: { ETag: ref.header('ETag'), Location: ref.header('Location'), 'Idempotent-Replayed': ref.header('IdempotentReplayed') },
};

const problems = (...statuses: readonly (ProblemStatus | readonly [ProblemStatus, string])[]) => resourceAnswers.problems(...statuses, 401, 429, 500);
const conditionalRead = [400, 403, [404, 'No resource of this kind with this id in the caller\'s tenant.'], 503] as const;
const idempotencyProblems = [
  [409, 'A request with the same Idempotency-Key is still running (or the resource is in a state that refuses this change).'],
  [422, 'This Idempotency-Key was used for another request.'],
] as const;
const changeProblems = [400, 403, [404, 'No resource of this kind with this id in the caller\'s tenant (404 wins over 412).'], ...idempotencyProblems, 412, 428] as const;
const bodyProblems = [413, 415] as const;

/** A resource API operation: every one takes the API line header. */
const resourceOperation = (op: Omit<Operation, 'security'> & { readonly scope: Scope }): Operation => {
  const { scope, ...rest } = op;
  return operation({ ...rest, security: apiKey(scope), parameters: [...(op.parameters ?? []), ref.parameter('ServiceOasVersion')] });
};

const write = [ref.parameter('IdempotencyKey')];
const conditionalWrite = [ref.parameter('IfMatch'), ref.parameter('IdempotencyKey')];
const conditional = [ref.parameter('IfNoneMatch')];
const idParameter = [ref.parameter('ResourceId')];
const revisionParameters = [ref.parameter('ResourceId'), ref.parameter('Revision')];

const ok = (description: string, content?: Content, headers: Readonly<Record<string, Reference>> = answerHeaders.written): Response =>
  resourceAnswers.answer(description, { ...(content ? { content } : {}), headers });
const notModified = resourceAnswers.answer('If-None-Match names the current etag: no body.', { headers: answerHeaders.etag });

/** `POST .../search` of a kind: `body` names the search body's component, `item` the items'. */
const search = (operationId: string, summary: string, kind: KindDocument, body: string, item: string, description = ''): Operation =>
  resourceOperation({
    operationId,
    summary,
    description: `${description ? `${description} ` : ''}Keyset pagination: when more results follow, \`next_cursor\`; send it back as \`cursor\` with the same body.`,
    tags: [tagOf(kind.path)],
    scope: kind.scope,
    parameters: [
      queryParameter('limit', 'Page size.', { type: 'integer', minimum: SEARCH_LIMIT.min, maximum: SEARCH_LIMIT.max, default: SEARCH_LIMIT.default }),
      queryParameter('cursor', 'The `next_cursor` of the previous page of this same search (a cursor of another search is 400).'),
    ],
    requestBody: jsonBody(ref.schema(body)),
    responses: {
      '200': ok('A page of results.', json(object({ items: arrayOf(ref.schema(item)) }, { next_cursor: string('Present when more results follow.') })), {}),
      ...problems(400, 403, ...bodyProblems),
    },
  });

/** The routes src/resources/routes.ts gives every kind. */
const versionedPaths = (kind: KindDocument): Paths => {
  const base = `/${kind.path}`;
  const body = json(ref.schema(kind.schema));
  const tags = [tagOf(kind.path)];
  const change = (operationId: string, summary: string, description: string, requestBody?: Operation['requestBody']): Operation =>
    resourceOperation({
      operationId,
      summary,
      description,
      tags,
      scope: kind.scope,
      parameters: conditionalWrite,
      ...(requestBody ? { requestBody } : {}),
      responses: { '200': ok('The new revision.', body), ...problems(...changeProblems, ...(requestBody ? bodyProblems : [])) },
    });
  return {
    [`${base}/search`]: {
      post: search(`search${kind.plural}`, `Search ${kind.path}`, kind, `${kind.schema}Search`, kind.schema),
    },
    [`${base}/{id}`]: {
      parameters: idParameter,
      get: resourceOperation({
        operationId: `get${kind.schema}`,
        summary: `Latest revision of ${kind.one}`,
        description: 'Also when deleted (`deleted_at` set).',
        tags,
        scope: kind.scope,
        parameters: conditional,
        responses: { '200': ok('The latest revision.', body, answerHeaders.etag), '304': notModified, ...problems(...conditionalRead) },
      }),
      delete: change(`delete${kind.schema}`, `Delete ${kind.one}`, 'A new revision with `deleted_at` set; 409 when already deleted.'),
    },
    [`${base}/{id}/history`]: {
      parameters: idParameter,
      get: resourceOperation({
        operationId: `get${kind.schema}History`,
        summary: `Every revision of ${kind.one}, oldest first`,
        tags,
        scope: kind.scope,
        parameters: conditional,
        responses: {
          '200': ok('Every revision; `ETag` of the latest.', json(object({ items: arrayOf(ref.schema(kind.schema), { minItems: 1 }) })), answerHeaders.etag),
          '304': notModified,
          ...problems(...conditionalRead),
        },
      }),
    },
    [`${base}/{id}/revisions/{revision}`]: {
      parameters: revisionParameters,
      get: resourceOperation({
        operationId: `get${kind.schema}Revision`,
        summary: `One revision of ${kind.one}`,
        tags,
        scope: kind.scope,
        parameters: conditional,
        responses: { '200': ok('That revision.', body, answerHeaders.etag), '304': notModified, ...problems(...conditionalRead) },
      }),
    },
    [`${base}/{id}/annotations`]: {
      parameters: idParameter,
      put: change(`put${kind.schema}Annotations`, `Replace the annotations of ${kind.one}`, '409 when deleted.', jsonBody(ref.schema('Annotations'))),
    },
    [`${base}/{id}/labels`]: {
      parameters: idParameter,
      put: change(`put${kind.schema}Labels`, `Replace the labels of ${kind.one}`, '409 when deleted.', jsonBody(ref.schema('Labels'))),
    },
    [`${base}/{id}/restore`]: {
      parameters: idParameter,
      post: change(`restore${kind.schema}`, `Restore ${kind.one}`, 'A new revision with `deleted_at` null; 409 when not deleted.'),
    },
  };
};

const created = (kind: string, description: string): Response =>
  resourceAnswers.answer(description, { content: json(ref.schema(kind)), headers: answerHeaders.created });

const create = (kind: KindDocument, op: { readonly summary: string; readonly description?: string; readonly requestBody: Operation['requestBody']; readonly parameters?: readonly (Parameter | Reference)[]; readonly responses: Operation['responses'] }): Operation =>
  resourceOperation({
    operationId: `create${kind.schema}`,
    tags: [tagOf(kind.path)],
    scope: kind.scope,
    ...op,
    parameters: [...(op.parameters ?? []), ...write],
  });

const upload = (kind: KindDocument): Paths => ({
  [`/${kind.path}/upload`]: {
    post: resourceOperation({
      operationId: `upload${kind.schema}`,
      summary: 'Request an upload URL',
      description: 'Step 1 of 3: PUT the bytes to `upload_uri`, then create with `blob_id`.',
      tags: [tagOf(kind.path)],
      scope: kind.scope,
      parameters: write,
      responses: { '200': ok('A pre-signed upload URL.', json(ref.schema('Upload')), { 'Idempotent-Replayed': ref.header('IdempotentReplayed') }), ...problems(403, ...idempotencyProblems, 400) },
    }),
  },
});

const blobId = queryParameter('blob_id', 'The `blob_id` of the upload, uploaded and not used.', uuid(), true);
const blobGone = [404, 'No uploaded, unused blob of this kind has this blob_id (unknown, another tenant\'s, not uploaded, used, or uploaded over 24 hours ago).'] as const;
const createProblems = [400, 403, ...idempotencyProblems, ...bodyProblems] as const;

const kind = (path: string): KindDocument => {
  const found = KINDS.find((k) => k.path === path);
  if (!found) throw new Error(`no resource kind ${path}`);
  return found;
};

const apiKeyPaths = (): Paths => ({
  '/api-keys': {
    post: create(kind('api-keys'), {
      summary: 'Create an API key',
      description: 'The new key has the scopes of the key that creates it, does not expire, and authenticates at once.',
      requestBody: jsonBody(ref.schema('CreateEnvelope')),
      responses: { '201': created('CreatedApiKey', 'Created; `data.secret` appears in this answer only.'), ...problems(...createProblems) },
    }),
  },
});

const filePaths = (): Paths => {
  const files = kind('files');
  return mergePaths(upload(files), {
    '/files': {
      post: create(files, {
        summary: 'Create a file from an uploaded blob',
        parameters: [blobId],
        requestBody: jsonBody(ref.schema('CreateFile')),
        responses: {
          '201': created('File', 'Created.'),
          ...problems(...createProblems, blobGone, [409, 'A live file of the tenant has the same content (or the Idempotency-Key is in use).']),
        },
      }),
    },
    '/files/{id}/revisions/{revision}/blob': {
      parameters: revisionParameters,
      get: resourceOperation({
        operationId: 'downloadFile',
        summary: 'Download the bytes',
        tags: [tagOf('files')],
        scope: 'resources',
        parameters: conditional,
        responses: {
          '200': ok('The bytes, with the file\'s `content_type`.', { '*/*': { schema: string(undefined, { contentMediaType: 'application/octet-stream' }) } }, answerHeaders.etag),
          '304': notModified,
          ...problems(...conditionalRead),
        },
      }),
    },
  });
};

const credentialPaths = (): Paths => {
  const credentials = kind('credentials');
  return mergePaths(upload(credentials), {
    '/credentials': {
      post: create(credentials, {
        summary: 'Import a credential from an uploaded blob',
        description: 'The blob must be a W3C VC (data model 1.1 or 2.0) in JSON; the proof is not verified.',
        parameters: [blobId, queryParameter('draft_id', 'The draft exported to obtain the credential (a draft of the tenant).', uuid())],
        requestBody: jsonBody(ref.schema('CreateEnvelope')),
        responses: {
          '201': created('Credential', 'Imported.'),
          ...problems(...createProblems, [404, 'No usable blob has this blob_id, or no draft of the tenant has this draft_id.'], [400, 'Invalid request, or the blob is not a verifiable credential (failures located in `blob`).']),
        },
      }),
    },
    '/credentials/{id}/values': {
      parameters: idParameter,
      get: resourceOperation({
        operationId: 'getCredentialValues',
        summary: 'The claim values',
        description: '`credentialSubject` (the first) without `id`, in the draft `values` structure.',
        tags: [tagOf('credentials')],
        scope: 'resources',
        responses: {
          '200': ok('Claim name -> `{kind, value}`.', json({ type: 'object', additionalProperties: ref.schema('KindedValue') }), {}),
          ...problems(400, 403, [404, 'No credential with this id in the caller\'s tenant.']),
        },
      }),
    },
  });
};

const schemaPaths = (): Paths => {
  const schemas = kind('schemas');
  return {
    '/schemas': {
      post: create(schemas, {
        summary: 'Create a schema',
        requestBody: jsonBody(ref.schema('CreateSchema')),
        responses: { '201': created('Schema', 'Created.'), ...problems(...createProblems, [409, 'A live schema with this slug and version exists (or the Idempotency-Key is in use).']) },
      }),
    },
    '/schemas/{id}/publish': {
      parameters: idParameter,
      patch: resourceOperation({
        operationId: 'publishSchema',
        summary: 'Publish',
        description: 'Serves the schema publicly at `data.url` and freezes it: every later change is 409.',
        tags: [tagOf('schemas')],
        scope: 'resources',
        parameters: conditionalWrite,
        responses: { '200': ok('The published revision.', json(ref.schema('Schema'))), ...problems(...changeProblems) },
      }),
    },
    '/published-schemas/search': {
      post: search(
        'searchPublishedSchemas',
        'Search published schemas',
        schemas,
        'SchemaSearch',
        'Schema',
        'The schema search narrowed to published ones (items keep `kind.name` `schema`).',
      ),
    },
  };
};

const draftPaths = (): Paths => {
  const drafts = kind('drafts');
  return {
    '/drafts': {
      post: create(drafts, {
        summary: 'Create a draft',
        requestBody: jsonBody(ref.schema('CreateDraft')),
        responses: { '201': created('Draft', 'Created.'), ...problems(...createProblems) },
      }),
    },
    '/drafts/{id}': {
      parameters: idParameter,
      patch: resourceOperation({
        operationId: 'updateDraft',
        summary: 'Update a draft',
        description: 'Each member of `data` given replaces that member; appended only at the revision `If-Match` names.',
        tags: [tagOf('drafts')],
        scope: 'resources',
        parameters: conditionalWrite,
        requestBody: jsonBody(ref.schema('UpdateDraft')),
        responses: { '200': ok('The new revision.', json(ref.schema('Draft'))), ...problems(...changeProblems, ...bodyProblems) },
      }),
    },
    '/drafts/{id}/revisions/{revision}/export': {
      parameters: revisionParameters,
      post: resourceOperation({
        operationId: 'exportDraft',
        summary: 'Export a revision as an unsigned credential',
        description: 'Nothing is signed or recorded.',
        tags: [tagOf('drafts')],
        scope: 'resources',
        requestBody: jsonBody(ref.schema('ExportDraft')),
        responses: {
          '200': ok('A JSON string holding a data model 1.1 credential (JSON-LD).', json(string(undefined, { contentMediaType: 'application/json' })), {}),
          ...problems(400, 403, [404, 'No draft with this id and revision in the caller\'s tenant.'], ...bodyProblems),
        },
      }),
    },
  };
};

const didcommPaths = (): Paths => ({
  '/didcomm-messages': {
    post: create(kind('didcomm-messages'), {
      summary: 'Send (record) a DIDComm message',
      description: 'Recorded, not transmitted. Embeds the named resources and, unless `disable_transitive_closure`, the live credentials they link to (up to 100).',
      requestBody: jsonBody(ref.schema('SendDidcommMessage')),
      responses: { '201': created('DidcommMessage', 'Recorded.'), ...problems(...createProblems, [404, 'A referenced resource is not a live one of the tenant (one `errors` entry per id).']) },
    }),
  },
});

const tenantPaths = (): Paths => ({
  '/support-requests': {
    post: resourceOperation({
      operationId: 'createSupportRequest',
      summary: 'Ask the operator for something',
      tags: ['resources: support-requests'],
      scope: 'resources',
      parameters: write,
      requestBody: jsonBody(ref.schema('SupportRequest')),
      responses: {
        '201': ok('Recorded; the message is sealed.', json(ref.schema('CreatedSupportRequest')), { 'Idempotent-Replayed': ref.header('IdempotentReplayed') }),
        ...problems(...createProblems),
      },
    }),
  },
  '/did': {
    get: resourceOperation({
      operationId: 'getTenantDid',
      summary: 'The caller\'s tenant DID document',
      tags: ['resources: did'],
      scope: 'resources',
      parameters: conditional,
      responses: { '200': ok('The did:web document.', json(ref.schema('DidDocument')), answerHeaders.etag), '304': notModified, ...problems(400, 403) },
    }),
  },
});

const publicProblems = managementAnswers.problems;
const publicRead = (operationId: string, summary: string, description: string, schema: string, notFound: string): Operation =>
  operation({
    operationId,
    summary,
    description,
    tags: ['public resources'],
    security: noAuthentication,
    parameters: conditional,
    responses: {
      '200': managementAnswers.answer('The document.', { content: json(ref.schema(schema)), headers: answerHeaders.etag }),
      '304': managementAnswers.answer('If-None-Match names the current etag: no body.', { headers: answerHeaders.etag }),
      ...publicProblems([400, 'If-None-Match is malformed.'], [404, notFound], 500),
    },
  });

const publicPaths: Paths = {
  '/blobs/{blobId}': {
    parameters: [pathParameter('blobId', 'From `upload_uri`.', uuid())],
    put: operation({
      operationId: 'uploadBlob',
      summary: 'Upload the bytes (step 2 of 3)',
      description: 'The URL is signed (HMAC over method, blob id, tenant and expiry): use `upload_uri` exactly. `Content-Type` becomes the file\'s default media type.',
      tags: ['public resources'],
      security: noAuthentication,
      parameters: [
        queryParameter('tenant', 'From `upload_uri`.', string(), true),
        queryParameter('expires', 'From `upload_uri`.', string(), true),
        queryParameter('signature', 'From `upload_uri`.', string(), true),
      ],
      requestBody: { required: true, content: { '*/*': { schema: string(undefined, { contentMediaType: 'application/octet-stream' }) } } },
      responses: {
        '200': managementAnswers.answer('Stored.', { content: json(ref.schema('UploadedBlob')) }),
        ...publicProblems(
          [403, 'The upload URL is expired or not valid.'],
          [404, 'No upload of this tenant has this blob id.'],
          [409, 'This blob has been uploaded already.'],
          [413, 'More than BLOB_MAX_BYTES; nothing is stored.'],
          [415, 'A compressed body (`Content-Encoding`).'],
          500,
        ),
      },
    }),
  },
  '/published-schemas/{id}': {
    parameters: [pathParameter('id', 'The schema\'s id.')],
    get: publicRead('getPublishedSchema', 'A published schema', 'Anyone holding the URL may read it; an unpublished schema is 404.', 'PublishedSchema', 'No published schema has this id.'),
  },
  '/tenants/{tenantId}/did.json': {
    parameters: [pathParameter('tenantId', 'The tenant id.')],
    get: publicRead('getDidDocument', 'A tenant\'s did:web document', 'Where did:web resolves `did:web:<host>:tenants:<tenant id>`.', 'DidDocument', 'No tenant has this id.'),
  },
};

const searchSchemas: Readonly<Record<string, Schema>> = Object.fromEntries(KINDS.map((k) => [`${k.schema}Search`, searchBody(k.search)]));

export const resourcesArea: Area = {
  tags: [
    ...KINDS.map((k) => ({ name: tagOf(k.path), description: `The \`${k.path}\` kind (scope \`${k.scope}\`).` })),
    { name: 'resources: support-requests', description: 'Requests to the operator.' },
    { name: 'resources: did', description: 'The tenant\'s did:web document.' },
    { name: 'public resources', description: 'Uploads, published schemas and DID documents on the public listener; errors are problem details.' },
  ],
  schemas: { ...resourceSchemas, ...searchSchemas },
  management: mergePaths(...KINDS.map(versionedPaths), apiKeyPaths(), filePaths(), credentialPaths(), schemaPaths(), draftPaths(), didcommPaths(), tenantPaths()),
  public: publicPaths,
};
