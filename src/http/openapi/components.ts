// What every area of the OpenAPI document shares: references, the problem and OAuth error bodies,
// the headers both listeners send and take, and builders for operations and their answers, so an
// area states what is particular to a route and nothing else.
import { MAX_FIELD_ERRORS } from '../excerpt.js';
import { PROBLEM_CONTENT_TYPE } from '../problem.js';
import type { Scope } from '../../../streams/apiKey.js';
import type { Content, Header, Method, Operation, Parameter, PathItem, Paths, Reference, Response, Schema } from './types.js';

export const ref = {
  schema: (name: string): Reference => ({ $ref: `#/components/schemas/${name}` }),
  parameter: (name: string): Reference => ({ $ref: `#/components/parameters/${name}` }),
  header: (name: string): Reference => ({ $ref: `#/components/headers/${name}` }),
  response: (name: string): Reference => ({ $ref: `#/components/responses/${name}` }),
};

export const json = (schema: Schema | Reference, examples?: Readonly<Record<string, unknown>>): Content => ({
  'application/json': {
    schema,
    ...(examples === undefined ? {} : { examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])) }),
  },
});

export const string = (description?: string, more: Schema = {}): Schema => ({ type: 'string', ...(description ? { description } : {}), ...more });
export const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema['type'], 'null'] });
export const arrayOf = (items: Schema | Reference, more: Schema = {}): Schema => ({ type: 'array', items, ...more });
export const dateTime = (description?: string): Schema => string(description, { format: 'date-time' });
export const uuid = (description?: string): Schema => string(description, { format: 'uuid' });
export const stringMap = (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string' } });
/** Any JSON value: claim values, schemas and other client-given JSON the service keeps as given. */
export const anyJson = (description: string): Schema => ({ description });

/** An object: `required` members and `optional` ones, by name. */
export const object = (required: Readonly<Record<string, Schema | Reference>>, optional: Readonly<Record<string, Schema | Reference>> = {}, description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  ...(Object.keys(required).length > 0 ? { required: Object.keys(required) } : {}),
  properties: { ...required, ...optional },
});

const ENTITY_TAG = '^(W/)?"[^"]*"$';

export const headers: Readonly<Record<string, Header>> = {
  RequestId: {
    description: 'The request id: the `X-Request-Id` sent when well-formed, else a generated UUID. In every log line about the request.',
    required: true,
    schema: string(undefined, { pattern: '^[A-Za-z0-9._:-]{1,128}$' }),
  },
  ETag: { description: 'Strong entity tag of the revision answered; send it in `If-Match` to change it.', required: true, schema: string(undefined, { pattern: ENTITY_TAG }) },
  Location: { description: 'Path of the resource created, on this listener.', required: true, schema: string() },
  RateLimit: {
    description: 'draft-ietf-httpapi-ratelimit-headers: requests left in the window (`r`) and seconds until it resets (`t`).',
    required: true,
    schema: string(undefined, { pattern: '^"tenant";r=\\d+;t=\\d+$' }),
  },
  RateLimitPolicy: {
    description: 'The quota (`q`, RESOURCE_RATE_LIMIT) per window of `w` seconds (RESOURCE_RATE_WINDOW_SECONDS), counted per tenant and instance.',
    required: true,
    schema: string(undefined, { pattern: '^"tenant";q=\\d+;w=\\d+$' }),
  },
  RetryAfter: { description: 'Seconds until the window resets.', required: true, schema: string(undefined, { pattern: '^\\d+$' }) },
  IdempotentReplayed: {
    description: 'Present (`true`) when the answer is the recorded one of an earlier request with the same `Idempotency-Key`.',
    schema: { const: 'true' },
  },
  WwwAuthenticateBearer: { description: 'The scheme to authenticate with.', required: true, schema: { const: 'Bearer' } },
  WwwAuthenticateDpop: {
    description: 'RFC 9449 section 7.1: `DPoP error="...", error_description="...", algs="ES256"`.',
    required: true,
    schema: string(undefined, { pattern: '^DPoP error="[a-z_]+"' }),
  },
  NoStore: { description: 'Wallet answers carry secrets or one-time values: never cached.', required: true, schema: { const: 'no-store' } },
  NoCache: { description: 'For HTTP/1.0 caches, beside `Cache-Control: no-store` (RFC 6749 section 5.1).', required: true, schema: { const: 'no-cache' } },
  DpopNonce: { description: 'The DPoP nonce the next proof carries (RFC 9449 section 8); it rotates every minute, the previous one still accepted.', schema: string() },
};

export const parameters: Readonly<Record<string, Parameter>> = {
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    description: 'A caller-chosen request id (1-128 of `A-Za-z0-9._:-`), echoed and logged; anything else is replaced by a generated one.',
    schema: string(),
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    description:
      'The same key with the same request (method, path and query, If-Match, JSON body) within 24 hours replays the first answer without running again ' +
      '(with `Idempotent-Replayed: true`); with another request it is 422, while the first still runs 409. Keys are per tenant.',
    schema: string(undefined, { pattern: '^[a-zA-Z0-9-]{32,256}$' }),
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: true,
    description: 'The etag of the revision being changed (a list of entity tags or `*`), compared strongly. Missing: 428; no match: 412.',
    schema: string(),
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    description: 'Entity tags (or `*`) compared weakly: a match answers 304 without a body.',
    schema: string(),
  },
  ServiceOasVersion: {
    name: 'X-Service-OAS-Version',
    in: 'header',
    description: 'The resource API line: absent or `0.40.x` the current one; `0.38.2` (or `0.38.0`) the 0.38 line, which changes drafts only. Anything else is 400.',
    schema: string(undefined, { pattern: '^(0\\.40\\.\\d{1,4}|0\\.38\\.[02])$' }),
  },
  ResourceId: { name: 'id', in: 'path', required: true, description: 'The resource id (a UUID; anything else is 400).', schema: uuid() },
  Revision: { name: 'revision', in: 'path', required: true, description: 'A revision, 1-999999 (anything else is 400).', schema: { type: 'integer', minimum: 1, maximum: 999999 } },
};

const FieldError = object(
  { location: string('Where in the request: `body.dcql_query.credentials[0].format`, `query.limit`, `header.if-match`, `path.id`...'), message: string() },
  { value: anyJson('An excerpt of the offending value (at most 120 characters of it); absent when there was none.') },
);

const Problem = object(
  {
    type: string('A relative, path-like identifier of the kind of error, e.g. `/problems/invalid-request`.'),
    title: string(),
    status: { type: 'integer', minimum: 100, maximum: 599 },
    detail: string(),
    errors: arrayOf(ref.schema('FieldError'), { maxItems: MAX_FIELD_ERRORS, description: 'One entry per failure (at most 20; `detail` counts them all); may be empty.' }),
  },
  {},
  'Problem details (RFC 9457 shape) of every management API error and of the generic errors of both listeners.',
);

const OAuthError = object(
  { error: string('An OAuth 2.0 / OpenID4VCI / RFC 9449 error code.'), error_description: string() },
  {},
  'A wallet-facing error, RFC 6749 section 5.2 shape.',
);

export const sharedSchemas: Readonly<Record<string, Schema>> = { Problem, FieldError, OAuthError };

export const securitySchemes = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key secret as `Authorization: Bearer <secret>` (the bootstrap key, or one made by the ops tool or `POST /api-keys`). ' +
      'A missing, unknown, expired or deleted key is 401, checked before routing; the role names of a requirement are the scope the key must hold (403 otherwise).',
  },
  dpop: {
    type: 'http',
    scheme: 'DPoP',
    description:
      'RFC 9449: the access token of the token endpoint as `Authorization: DPoP <token>`, with a `DPoP` header holding a proof signed by the key the token is bound to, with `ath`.',
  },
} as const;

/** `[503, why]` for an operation that needs the keys (src/crypto/keyStore.ts KeysUnavailable). */
export const KEYS_UNAVAILABLE = [503, 'The keys are unavailable (KEY_STORE=pkcs11: the token does not answer); nothing was recorded. Retry later (`Retry-After`).'] as const;

/** The status codes problem answers are described for. */
const PROBLEM_STATUSES = {
  400: 'Invalid request: malformed JSON, failed validation (one `errors` entry per failure), a bad header or query parameter.',
  401: 'No API key, or an unknown, expired or deleted one.',
  403: 'The API key lacks the scope of this operation.',
  404: 'Nothing of this kind with this id in the caller\'s tenant.',
  409: 'The resource is not in a state that allows this, or a request with the same Idempotency-Key is still running.',
  410: 'Gone: the content is no longer served (its resource is deleted, or the content erased), or what was here was deleted for good (the end of its retention time).',
  412: 'If-Match names no current etag; nothing was written.',
  413: 'The request body is over the limit.',
  415: 'The body is not of the media type the operation takes.',
  422: 'Well-formed but not acceptable (an Idempotency-Key used for another request, a name that is not configured).',
  428: 'If-Match is required.',
  429: 'The tenant\'s quota for the window is used up; nothing ran.',
  500: 'An unexpected error; the detail is generic and the cause is in the log.',
  503: 'The resource cannot be read: an event of it is quarantined (README, Probes and quarantine). Retrying does not help until a rebuild with a fixed projection.',
} as const;
export type ProblemStatus = keyof typeof PROBLEM_STATUSES;

const problemContent = (status: number): Content => ({
  [PROBLEM_CONTENT_TYPE]: { schema: { allOf: [ref.schema('Problem'), { properties: { status: { const: status } } }] } },
});

/**
 * The answers of one group of routes: which headers every answer carries and which component
 * holds each problem answer. `managementAnswers` serve the management API outside the resource
 * API and the public listener (problems are its generic errors too); `resourceAnswers` add the
 * rate limit headers.
 */
export interface Answers {
  readonly name: string;
  readonly headers: Readonly<Record<string, Reference>>;
  /**
   * Problem answers by status, as references to components; `[status, why]` says what causes
   * that status on this route instead of the component's general description.
   */
  problems(...statuses: readonly (ProblemStatus | readonly [ProblemStatus, string])[]): Readonly<Record<string, Reference>>;
  /** A non-error answer with these headers (the group's own are added). */
  answer(description: string, options?: { readonly content?: Content; readonly headers?: Readonly<Record<string, Reference>> }): Response;
}

const answers = (name: string, groupHeaders: Readonly<Record<string, Reference>>): Answers => ({
  name,
  headers: groupHeaders,
  problems: (...statuses) =>
    Object.fromEntries(
      statuses.map((entry) => {
        const [status, why] = typeof entry === 'number' ? [entry, undefined] : entry;
        return [String(status), { ...ref.response(`${name}${status}`), ...(why === undefined ? {} : { description: why }) }];
      }),
    ),
  answer: (description, options = {}) => ({
    description,
    headers: { ...groupHeaders, ...options.headers },
    ...(options.content ? { content: options.content } : {}),
  }),
});

export const managementAnswers = answers('Problem', { 'X-Request-Id': ref.header('RequestId') });
export const resourceAnswers = answers('RateLimitedProblem', {
  'X-Request-Id': ref.header('RequestId'),
  RateLimit: ref.header('RateLimit'),
  'RateLimit-Policy': ref.header('RateLimitPolicy'),
});

/** The problem answers of every group, as components. */
export const problemResponses = (): Readonly<Record<string, Response>> =>
  Object.fromEntries(
    [managementAnswers, resourceAnswers].flatMap((group) =>
      (Object.keys(PROBLEM_STATUSES) as unknown as ProblemStatus[]).map((key) => {
        const status = Number(key) as ProblemStatus;
        // Authentication runs before the rate limit: a 401 never counts against the quota.
        const groupHeaders = status === 401 ? managementAnswers.headers : group.headers;
        const extra: Readonly<Record<string, Reference>> = status === 401 ? { 'WWW-Authenticate': ref.header('WwwAuthenticateBearer') } : status === 429 ? { 'Retry-After': ref.header('RetryAfter') } : {};
        return [`${group.name}${status}`, { description: PROBLEM_STATUSES[status], headers: { ...groupHeaders, ...extra }, content: problemContent(status) }];
      }),
    ),
  );

/** A wallet-facing error answer: OAuth `error` among `codes`, never cached. */
export const oauthError = (description: string, codes: readonly string[], more: Readonly<Record<string, Reference>> = {}): Response => ({
  description,
  headers: { 'X-Request-Id': ref.header('RequestId'), 'Cache-Control': ref.header('NoStore'), ...more },
  content: json({ allOf: [ref.schema('OAuthError'), { properties: { error: { enum: codes } } }] }),
});

/** The API key requirement of a management operation: `scope` is the role the key must hold. */
export const apiKey = (scope?: Scope): Operation['security'] => [{ apiKey: scope ? [scope] : [] }];
export const noAuthentication: Operation['security'] = [];

/** An operation; `X-Request-Id` is added to its parameters, as every route takes it. */
export const operation = (op: Operation): Operation => ({ ...op, parameters: [...(op.parameters ?? []), ref.parameter('RequestId')] });

/** A JSON request body, with examples by name. */
export const jsonBody = (schema: Schema | Reference, examples?: Readonly<Record<string, unknown>>) => ({ required: true, content: json(schema, examples) });

/** A header parameter given inline (one route's own). */
export const header = (name: string, description: string, schema: Schema = string()): Parameter => ({ name, in: 'header', description, schema });
export const pathParameter = (name: string, description: string, schema: Schema = string()): Parameter => ({ name, in: 'path', required: true, description, schema });
export const queryParameter = (name: string, description: string, schema: Schema = string(), required = false): Parameter => ({ name, in: 'query', description, schema, ...(required ? { required } : {}) });

export const METHODS: readonly Method[] = ['get', 'head', 'post', 'put', 'patch', 'delete'];

/** Path items merged by template: a template may get its methods from several places, a method only from one. */
export const mergePaths = (...all: readonly Paths[]): Paths => {
  const merged: Record<string, PathItem> = {};
  for (const paths of all) {
    for (const [template, item] of Object.entries(paths)) {
      const existing = merged[template];
      if (existing) {
        for (const method of METHODS) if (existing[method] && item[method]) throw new Error(`${method.toUpperCase()} ${template} is described twice`);
      }
      merged[template] = existing ? { ...existing, ...item, ...(existing.parameters ? { parameters: existing.parameters } : {}) } : item;
    }
  }
  return merged;
};
