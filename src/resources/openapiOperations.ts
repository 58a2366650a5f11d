// The shapes every resource kind's operations share (src/resources/routes.ts mounts them for
// each kind): the kinds, their answers and problems, the versioned routes (latest, history,
// revision, annotations, labels, delete, restore, search), create and upload.
import type { Scope } from '../../streams/apiKey.js';
import { apiKeysKind } from './apiKeys.js';
import { credentialsKind } from './credentials.js';
import { credentialConfigurationsKind } from './credentialConfigurationsKind.js';
import { FILE_SEARCH } from './files.js';
import { presentationsKind } from './presentations.js';
import { schemasKind } from './schemas.js';
import { signingKeysKind } from './signingKeysKind.js';
import { ENVELOPE_ONLY, SEARCH_LIMIT, type DataSearch } from './search.js';
import { apiKey, arrayOf, json, jsonBody, object, operation, queryParameter, ref, resourceAnswers, string, uuid, type ProblemStatus } from '../http/openapi/components.js';
import type { Content, Operation, Parameter, Paths, Reference, Response } from '../http/openapi/types.js';

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

export const KINDS: readonly KindDocument[] = [
  { path: apiKeysKind.path, schema: 'ApiKey', plural: 'ApiKeys', one: 'an API key', scope: apiKeysKind.scope, search: apiKeysKind.search },
  { path: 'files', schema: 'File', plural: 'Files', one: 'a file', scope: 'resources', search: FILE_SEARCH },
  { path: credentialsKind.path, schema: 'Credential', plural: 'Credentials', one: 'a credential', scope: credentialsKind.scope, search: credentialsKind.search },
  { path: schemasKind.path, schema: 'Schema', plural: 'Schemas', one: 'a schema', scope: schemasKind.scope, search: schemasKind.search },
  { path: 'drafts', schema: 'Draft', plural: 'Drafts', one: 'a draft', scope: 'resources', search: ENVELOPE_ONLY },
  { path: 'didcomm-messages', schema: 'DidcommMessage', plural: 'DidcommMessages', one: 'a DIDComm message', scope: 'resources', search: ENVELOPE_ONLY },
  { path: presentationsKind.path, schema: 'Presentation', plural: 'Presentations', one: 'a presentation', scope: presentationsKind.scope, search: presentationsKind.search },
  {
    path: credentialConfigurationsKind.path,
    schema: 'CredentialConfiguration',
    plural: 'CredentialConfigurations',
    one: 'a credential configuration',
    scope: credentialConfigurationsKind.scope,
    search: credentialConfigurationsKind.search,
  },
  { path: signingKeysKind.path, schema: 'SigningKey', plural: 'SigningKeys', one: 'a signing key', scope: signingKeysKind.scope, search: signingKeysKind.search },
];

export const tagOf = (path: string): string => `resources: ${path}`;

export const answerHeaders = {
  etag: { ETag: ref.header('ETag') },
  written: { ETag: ref.header('ETag'), 'Idempotent-Replayed': ref.header('IdempotentReplayed') },
  created: { ETag: ref.header('ETag'), Location: ref.header('Location'), 'Idempotent-Replayed': ref.header('IdempotentReplayed') },
};

export const problems = (...statuses: readonly (ProblemStatus | readonly [ProblemStatus, string])[]) => resourceAnswers.problems(...statuses, 401, 429, 500);
export const conditionalRead = [400, 403, [404, 'No resource of this kind with this id in the caller\'s tenant.'], 503] as const;
const idempotencyProblems = [
  [409, 'A request with the same Idempotency-Key is still running (or the resource is in a state that refuses this change).'],
  [422, 'This Idempotency-Key was used for another request.'],
] as const;
export const changeProblems = [400, 403, [404, 'No resource of this kind with this id in the caller\'s tenant (404 wins over 412).'], ...idempotencyProblems, 412, 428] as const;
export const bodyProblems = [413, 415] as const;

/** A resource API operation: every one takes the API line header. */
export const resourceOperation = (op: Omit<Operation, 'security'> & { readonly scope: Scope }): Operation => {
  const { scope, ...rest } = op;
  return operation({ ...rest, security: apiKey(scope), parameters: [...(op.parameters ?? []), ref.parameter('ServiceOasVersion')] });
};

export const write = [ref.parameter('IdempotencyKey')];
export const conditionalWrite = [ref.parameter('IfMatch'), ref.parameter('IdempotencyKey')];
export const conditional = [ref.parameter('IfNoneMatch')];
export const idParameter = [ref.parameter('ResourceId')];
export const revisionParameters = [ref.parameter('ResourceId'), ref.parameter('Revision')];

export const ok = (description: string, content?: Content, headers: Readonly<Record<string, Reference>> = answerHeaders.written): Response =>
  resourceAnswers.answer(description, { ...(content ? { content } : {}), headers });
export const notModified = resourceAnswers.answer('If-None-Match names the current etag: no body.', { headers: answerHeaders.etag });

/** `POST .../search` of a kind: `body` names the search body's component, `item` the items'. */
export const search = (operationId: string, summary: string, kind: KindDocument, body: string, item: string, description = ''): Operation =>
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
export const versionedPaths = (kind: KindDocument): Paths => {
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
      post: change(`restore${kind.schema}`, `Restore ${kind.one}`, 'A new revision with `deleted_at` null; 409 when not deleted, and for credentials, files and presentations once the restore window (`RESTORE_WINDOW_SECONDS` after deletion) has passed: their content is erased then.'),
    },
  };
};

export const created = (kind: string, description: string): Response =>
  resourceAnswers.answer(description, { content: json(ref.schema(kind)), headers: answerHeaders.created });

export const create = (kind: KindDocument, op: { readonly summary: string; readonly description?: string; readonly requestBody: Operation['requestBody']; readonly parameters?: readonly (Parameter | Reference)[]; readonly responses: Operation['responses'] }): Operation =>
  resourceOperation({
    operationId: `create${kind.schema}`,
    tags: [tagOf(kind.path)],
    scope: kind.scope,
    ...op,
    parameters: [...(op.parameters ?? []), ...write],
  });

export const upload = (kind: KindDocument): Paths => ({
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

export const blobId = queryParameter('blob_id', 'The `blob_id` of the upload, uploaded and not used.', uuid(), true);
export const blobGone = [404, 'No uploaded, unused blob of this kind has this blob_id (unknown, another tenant\'s, not uploaded, used, or uploaded over 24 hours ago).'] as const;
export const createProblems = [400, 403, ...idempotencyProblems, ...bodyProblems] as const;

export const kind = (path: string): KindDocument => {
  const found = KINDS.find((k) => k.path === path);
  if (!found) throw new Error(`no resource kind ${path}`);
  return found;
};
