// The platform resource API (src/resources/): each kind's own routes beside the shared ones
// (resourceOperations.ts), and the public routes for uploads, published schemas and DID documents.
import { arrayOf, json, jsonBody, managementAnswers, mergePaths, noAuthentication, object, operation, pathParameter, queryParameter, ref, resourceAnswers, string, uuid } from '../http/openapi/components.js';
import { resourceSchemas, searchBody } from './openapiSchemas.js';
import { credentialConfigurationPaths, credentialConfigurationSchemas } from './openapiCredentialConfigurations.js';
import { signingKeyPaths, signingKeySchemas } from './openapiSigningKeys.js';
import { SINGLETON_TAG, singletonOpenApiPaths, singletonSchemas } from './openapiSingletons.js';
import type { Area, Operation, Paths, Schema } from '../http/openapi/types.js';
import {
  answerHeaders,
  blobGone,
  blobId,
  bodyProblems,
  changeProblems,
  conditional,
  conditionalRead,
  conditionalWrite,
  create,
  created,
  createProblems,
  idParameter,
  kind,
  KINDS,
  notModified,
  ok,
  problems,
  resourceOperation,
  revisionParameters,
  search,
  tagOf,
  upload,
  versionedPaths,
  write,
} from './openapiOperations.js';

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

/** Content is served while its resource is live (docs/data-at-rest.md). */
const contentGone = [410, 'The resource is deleted (restore it to read its content), or its content was erased: deleted past the restore window, or the tenant\'s data erased (`/problems/content-gone`).'] as const;

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
          ...problems(...conditionalRead, contentGone),
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
          ...problems(400, 403, [404, 'No credential with this id in the caller\'s tenant.'], contentGone),
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
      summary: 'Send a DIDComm message',
      description:
        'Records the message, then delivers it at least once: packed as a DIDComm v2 authcrypt message from the tenant\'s DID to the recipient and posted to its DIDCommMessaging service endpoint, retried like a callback (see `data.delivery`). Embeds the named resources and, unless `disable_transitive_closure`, the live credentials they link to (up to 100). A recipient that is not a `did:peer:2` or `did:web`, or a `did:peer:2` without a usable key or endpoint, is a 400 located at `body.data.to`, and nothing is recorded.',
      requestBody: jsonBody(ref.schema('SendDidcommMessage')),
      responses: { '201': created('DidcommMessage', 'Recorded; its delivery is pending.'), ...problems(...createProblems, [404, 'A referenced resource is not a live one of the tenant (one `errors` entry per id).']) },
    }),
  },
});

const presentationPaths = (): Paths => {
  const presentations = kind('presentations');
  return {
    '/presentations': {
      post: create(presentations, {
        summary: 'Make a presentation of credentials',
        description:
          'An unsigned W3C Verifiable Presentation (data model 1.1, JSON-LD) holding the named credentials as imported, with the tenant\'s DID as `holder`; stored as the presentation\'s content, sealed at rest with a data key of its own like a credential\'s content, and erased the same way (deleted past the restore window).',
        requestBody: jsonBody(ref.schema('CreatePresentation')),
        responses: {
          '201': created('Presentation', 'Created.'),
          ...problems(
            ...createProblems,
            [404, 'A named credential is not a live one of the tenant (one `errors` entry per id).'],
            [410, 'A named credential\'s content was erased (one `errors` entry per id; `/problems/content-gone`).'],
          ),
        },
      }),
    },
    '/presentations/{id}/content': {
      parameters: idParameter,
      get: resourceOperation({
        operationId: 'getPresentationContent',
        summary: 'The presentation itself',
        tags: [tagOf('presentations')],
        scope: 'resources',
        responses: {
          '200': ok('The unsigned Verifiable Presentation (JSON-LD).', json({ type: 'object' }), {}),
          ...problems(400, 403, [404, 'No presentation with this id in the caller\'s tenant.'], contentGone),
        },
      }),
    },
  };
};

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
        '201': ok('Recorded; the message is sealed.', json(ref.schema('CreatedSupportRequest')), { 'Idempotent-Replayed': ref.header('IdempotentReplayed'), Location: ref.header('Location') }),
        ...problems(...createProblems),
      },
    }),
    get: resourceOperation({
      operationId: 'listSupportRequests',
      summary: 'The caller\'s support requests, oldest first',
      tags: ['resources: support-requests'],
      scope: 'resources',
      responses: { '200': ok('Each with its state and the operator\'s note.', json(object({ items: arrayOf(ref.schema('SupportRequestView')) })), {}), ...problems(400, 403) },
    }),
  },
  '/support-requests/{id}': {
    parameters: [pathParameter('id', 'The support request\'s id.', uuid())],
    get: resourceOperation({
      operationId: 'getSupportRequest',
      summary: 'One support request: state, note, transitions',
      tags: ['resources: support-requests'],
      scope: 'resources',
      responses: { '200': ok('The request.', json(ref.schema('SupportRequestView')), {}), ...problems(400, 403, [404, 'No support request of the caller\'s tenant has this id.']) },
    }),
  },
  '/support-requests/{id}/export': {
    parameters: [pathParameter('id', 'The support request\'s id.', uuid())],
    get: resourceOperation({
      operationId: 'getSupportRequestExport',
      summary: 'Download a DATA_DUMP\'s archive',
      description:
        'A tar archive of everything the tenant holds (every resource\'s latest envelope, history and content; connector sessions and offers without their claims; support requests), with `manifest.json` listing every other file with its size and SHA-256. Kept, sealed, for SUPPORT_EXPORT_RETENTION_SECONDS after the operator made it.',
      tags: ['resources: support-requests'],
      scope: 'resources',
      responses: {
        '200': resourceAnswers.answer('The archive.', { content: { 'application/x-tar': { schema: string(undefined, { contentMediaType: 'application/x-tar' }) } }, headers: {} }),
        ...problems(400, 403, [404, 'No support request of the caller\'s tenant has this id, or it has no export (not a DATA_DUMP, or not exported yet).'], [410, 'The archive was deleted at the end of its retention time.']),
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
    { name: SINGLETON_TAG, description: 'The tenant\'s settings and its registration as a relying party: one each, from the tenant\'s creation (scope `admin`).' },
    { name: 'public resources', description: 'Uploads, published schemas and DID documents on the public listener; errors are problem details.' },
  ],
  schemas: { ...resourceSchemas, ...credentialConfigurationSchemas, ...signingKeySchemas, ...searchSchemas, ...singletonSchemas },
  management: mergePaths(...KINDS.map(versionedPaths), apiKeyPaths(), filePaths(), credentialPaths(), schemaPaths(), draftPaths(), didcommPaths(), presentationPaths(), tenantPaths(), credentialConfigurationPaths(), signingKeyPaths(), singletonOpenApiPaths()),
  public: publicPaths,
};
