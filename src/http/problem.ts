// Problem details (RFC 9457-shaped) for the management API and the generic errors of both
// listeners. `type` is a relative, path-like identifier rather than an absolute URL so the body
// does not depend on where the service is deployed.
import { KeysUnavailable } from '../crypto/keyStore.js';
import type { Context, Middleware, Next } from 'koa';
import type Router from '@koa/router';
import type { Logger } from '../log.js';
import { requestIdOf, routeOf } from '../log.js';
import { clip, excerpt, MAX_FIELD_ERRORS } from './excerpt.js';

/** One reason a request was rejected. `value` is the offending input (omitted from JSON when undefined). */
export interface FieldError {
  /** Where in the request: `body`, `query.limit`, `body.credentials[0].format`, `header.if-match`... */
  readonly location: string;
  readonly message: string;
  readonly value: unknown;
}

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** Always present (possibly empty) so clients can read it without checking. */
  readonly errors: readonly FieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Every problem is built here, so none can echo more than a bounded excerpt of its input. */
export const problem = (
  status: number,
  type: string,
  title: string,
  detail: string,
  errors: readonly FieldError[] = [],
): Problem => ({
  type,
  title,
  status,
  detail: clip(detail),
  errors: errors.slice(0, MAX_FIELD_ERRORS).map((e) => ({ location: clip(e.location), message: clip(e.message), value: excerpt(e.value) })),
});

export const invalidRequest = (detail: string, errors: readonly FieldError[] = []): Problem =>
  problem(400, '/problems/invalid-request', 'Invalid request', detail, errors);

/** A 400 for values that fail validation: one `errors` entry each, the detail naming the one or counting them. */
export const invalidValues = (errors: readonly FieldError[]): Problem =>
  invalidRequest(errors.length === 1 ? `Invalid ${errors[0]!.location}.` : `${errors.length} values are invalid.`, errors);

/** Send with a `WWW-Authenticate` header (see HttpError) so clients know which scheme to use. */
export const unauthorized = (detail = 'Authentication is required.'): Problem =>
  problem(401, '/problems/unauthorized', 'Unauthorized', detail);

export const forbidden = (detail = 'The credentials do not allow this operation.'): Problem =>
  problem(403, '/problems/forbidden', 'Forbidden', detail);

export const notFound = (detail = 'No resource exists at this location.'): Problem =>
  problem(404, '/problems/not-found', 'Not found', detail);

export const methodNotAllowed = (allowed: readonly string[]): Problem =>
  problem(
    405,
    '/problems/method-not-allowed',
    'Method not allowed',
    allowed.length > 0 ? `Allowed methods: ${allowed.join(', ')}.` : 'No method is allowed here.',
  );

export const conflict = (detail: string, errors: readonly FieldError[] = []): Problem =>
  problem(409, '/problems/conflict', 'Conflict', detail, errors);

export const preconditionFailed = (detail = 'The resource has changed since the version given in If-Match.'): Problem =>
  problem(412, '/problems/precondition-failed', 'Precondition failed', detail);

export const contentTooLarge = (limitBytes: number): Problem =>
  problem(413, '/problems/content-too-large', 'Content too large', `The request body exceeds ${limitBytes} bytes.`);

export const unsupportedMediaType = (detail: string): Problem =>
  problem(415, '/problems/unsupported-media-type', 'Unsupported media type', detail);

/** Well-formed but semantically unacceptable (e.g. refers to something in the wrong state). */
export const unprocessable = (detail: string, errors: readonly FieldError[] = []): Problem =>
  problem(422, '/problems/unprocessable-content', 'Unprocessable content', detail, errors);

export const preconditionRequired = (detail = 'This request must be conditional: send If-Match.'): Problem =>
  problem(428, '/problems/precondition-required', 'Precondition required', detail);

/** Send with a `Retry-After` header (see HttpError) when the wait is known. */
export const tooManyRequests = (detail = 'Too many requests; retry later.'): Problem =>
  problem(429, '/problems/too-many-requests', 'Too many requests', detail);

export const internalError = (detail = 'An unexpected error occurred.'): Problem =>
  problem(500, '/problems/internal-error', 'Internal error', detail);

/** Send with a `Retry-After` header (see HttpError) when waiting is expected to help. */
export const serviceUnavailable = (detail: string, type = '/problems/service-unavailable', title = 'Service unavailable'): Problem =>
  problem(503, type, title, detail);

/** The signing keys or the key-encryption key cannot be used now (src/crypto/keyStore.ts KeysUnavailable). */
export const keysUnavailable = (): Problem =>
  serviceUnavailable('The keys are unavailable (the key store does not answer); nothing was changed. Retry later.', '/problems/keys-unavailable', 'Keys unavailable');

/**
 * A Problem thrown at the edge (route handlers, body readers, decoders). `headers` are sent with
 * the problem response, e.g. `Allow`, `WWW-Authenticate`, `Retry-After`.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly problem: Problem;
  readonly headers: Readonly<Record<string, string>>;

  constructor(p: Problem, headers: Readonly<Record<string, string>> = {}) {
    super(`${p.status} ${p.title}: ${p.detail}`);
    this.problem = p;
    this.headers = headers;
  }

  get status(): number {
    return this.problem.status;
  }
}

export const isHttpError = (err: unknown): err is HttpError => err instanceof HttpError;

/** Write a problem response directly, for code that answers instead of throwing. */
export function sendProblem(ctx: Context, p: Problem, headers: Readonly<Record<string, string>> = {}): void {
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  ctx.status = p.status;
  ctx.body = p;
  // After the body: Koa's body setter would otherwise pick application/json.
  ctx.set('Content-Type', PROBLEM_CONTENT_TYPE);
}

const KEPT_HEADERS = 'headersKeptOnError';

/**
 * Sets headers that describe the request rather than its answer (RateLimit counts it whatever the
 * outcome), so `problems` keeps them on an error response instead of dropping them with the rest.
 */
export function setKeptHeaders(ctx: Context, headers: Readonly<Record<string, string>>): void {
  ctx.state[KEPT_HEADERS] = { ...keptHeadersOf(ctx), ...headers };
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
}

const keptHeadersOf = (ctx: Context): Readonly<Record<string, string>> =>
  (ctx.state[KEPT_HEADERS] as Readonly<Record<string, string>> | undefined) ?? {};

export interface ProblemsOptions {
  readonly logger: Logger;
}

/**
 * Turns whatever happens below it into a response:
 * - a thrown HttpError becomes its problem (with its headers);
 * - KeysUnavailable (a token that does not answer) becomes a 503 keys-unavailable problem;
 * - any other thrown value becomes a generic 500 problem and is logged: internal messages and
 *   stacks can carry secrets and implementation details, so they go to the log only. This
 *   includes errors carrying a `status` (http-errors, ctx.throw), because an upstream client's
 *   404 must not surface as ours; throw HttpError for deliberate client errors;
 * - a fall-through (404 with no body) becomes a 404 problem.
 * Headers set by inner middleware are dropped on error (they described a response that will not
 * be sent, e.g. Location or ETag); headers set before this middleware ran, or with setKeptHeaders,
 * are kept.
 */
export function problems(options: ProblemsOptions): Middleware {
  const { logger } = options;
  return async (ctx: Context, next: Next): Promise<void> => {
    const outerHeaders = { ...ctx.response.headers };
    try {
      await next();
    } catch (err) {
      if (ctx.headerSent || !ctx.writable) {
        // Nothing can be sent any more; make sure the failure is at least on record.
        logger.error('error after response started', errorFields(ctx, err));
        return;
      }
      const failure = err instanceof KeysUnavailable ? new HttpError(keysUnavailable(), { 'Retry-After': '5' }) : err;
      const p = isHttpError(failure) ? failure.problem : internalError();
      if (!isHttpError(failure) || p.status >= 500) logger.error('request failed', errorFields(ctx, err));
      resetHeaders(ctx, { ...outerHeaders, ...keptHeadersOf(ctx) });
      sendProblem(ctx, p, isHttpError(failure) ? failure.headers : {});
      return;
    }
    if (ctx.status === 404 && ctx.body == null && ctx.respond !== false) {
      sendProblem(ctx, notFound());
    }
  };
}

const errorFields = (ctx: Context, err: unknown): Record<string, unknown> => ({
  requestId: requestIdOf(ctx),
  method: ctx.method,
  route: routeOf(ctx),
  err: err instanceof Error ? err : { thrown: String(err) },
});

function resetHeaders(ctx: Context, keep: Record<string, unknown>): void {
  for (const name of ctx.res.getHeaderNames()) ctx.remove(name);
  for (const [name, value] of Object.entries(keep)) {
    if (typeof value === 'string' || Array.isArray(value)) ctx.set(name, value as string | string[]);
    else if (typeof value === 'number') ctx.set(name, String(value));
  }
}

/**
 * `router.allowedMethods()` that answers with a 405 problem carrying `Allow`, also for methods no
 * route of the router knows (PROPFIND, ...): the router calls those 501, a server error that would
 * be logged as one, though only the client's request is wrong.
 *
 * @koa/router 15's `allowedMethods({ throw: true, methodNotAllowed })` calls the factory with no
 * arguments and does not set `Allow` when throwing, so the allowed methods would be lost. Instead
 * this lets the router set status and `Allow` itself (non-throwing mode) and then rethrows the
 * empty 405/501 as an HttpError carrying that `Allow`. Mount it after `router.routes()`.
 */
export function allowedMethods(router: Pick<Router, 'allowedMethods'>): Middleware {
  const inner = router.allowedMethods() as unknown as Middleware;
  return async (ctx: Context, next: Next): Promise<void> => {
    await inner(ctx, next);
    if (ctx.body != null || (ctx.status !== 405 && ctx.status !== 501)) return;
    const allow = ctx.response.get('Allow');
    const methods = allow
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== '');
    throw new HttpError(methodNotAllowed(methods), { Allow: methods.join(', ') });
  };
}
