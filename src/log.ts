// A small structured logger (one JSON object per line on stdout) and a per-request log line.
// No dependency: the needs are tiny and a logging library would be one more thing to audit for
// what it serialises.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Context, Middleware, Next } from 'koa';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  readonly level: LogLevel;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line (a call's own fields win over them). */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  readonly level?: LogLevel;
  readonly fields?: LogFields;
  /** Where finished lines go (without the newline). Defaults to stdout; tests capture here. */
  readonly write?: (line: string) => void;
  readonly now?: () => Date;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

// These keys belong to the line itself; a field with the same name must not be able to forge them.
const RESERVED = new Set(['time', 'level', 'msg']);

// JSON.stringify throws on bigint (event store positions are bigints) and renders Errors as `{}`.
const replacer = (_key: string, value: unknown): unknown => {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message, stack: value.stack };
    if ('code' in value) out['code'] = value.code;
    if (value.cause !== undefined) out['cause'] = value.cause;
    return out;
  }
  return value;
};

const defaultWrite = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const write = options.write ?? defaultWrite;
  const now = options.now ?? (() => new Date());
  return makeLogger(level, options.fields ?? {}, write, now);
}

function makeLogger(level: LogLevel, base: LogFields, write: (line: string) => void, now: () => Date): Logger {
  const emit = (lineLevel: LogLevel, msg: string, fields?: LogFields): void => {
    if (rank[lineLevel] < rank[level]) return;
    const time = now().toISOString();
    const line: Record<string, unknown> = { time, level: lineLevel, msg };
    for (const source of [base, fields ?? {}]) {
      for (const [key, value] of Object.entries(source)) {
        if (!RESERVED.has(key)) line[key] = value;
      }
    }
    let text: string;
    try {
      text = JSON.stringify(line, replacer);
    } catch {
      // Circular fields: a logging call must never throw, so keep the message and say what was lost.
      text = JSON.stringify({ time, level: lineLevel, msg, logError: 'fields could not be serialised' });
    }
    write(text);
  };
  return {
    level,
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => makeLogger(level, { ...base, ...fields }, write, now),
  };
}

/** A logger that drops everything, for code paths and tests that need one but not its output. */
export const silentLogger: Logger = createLogger({ level: 'error', write: () => undefined });

export const REQUEST_ID_HEADER = 'X-Request-Id';

// Incoming ids are echoed into headers and logs, so only accept a conservative token shape
// (UUIDs, W3C trace ids, ULIDs...) and replace anything else rather than sanitising it.
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id requestLog() assigned to this request, if it ran. */
export const requestIdOf = (ctx: Context): string | undefined => {
  const id: unknown = ctx.state['requestId'];
  return typeof id === 'string' ? id : undefined;
};

/**
 * The matched route template as @koa/router 15 records it (`ctx._matchedRoute`; `ctx.routerPath`
 * holds the same value but is also read by the router as a path override, so it is not relied on).
 * Templates are logged instead of the request path because paths and query strings can carry
 * identifiers and secrets (pre-authorised codes, states, transaction ids).
 */
export const routeOf = (ctx: Context): string | null => {
  const route: unknown = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof route === 'string') return route;
  if (route instanceof RegExp) return route.toString();
  return null;
};

/**
 * One log line per request: method, route template, status, duration and request id. Mount it
 * outermost (before problems()) so it sees the final status. Never logs bodies, headers, paths
 * or query strings.
 */
export function requestLog(logger: Logger): Middleware {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = performance.now();
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const requestId = VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state['requestId'] = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    let status: number | undefined;
    try {
      await next();
      status = ctx.status;
    } catch (err) {
      // Normally problems() has already turned errors into responses; this is Koa's own handler's case.
      const s = (err as { status?: unknown; statusCode?: unknown } | null)?.status;
      status = typeof s === 'number' && s >= 400 && s <= 599 ? s : 500;
      throw err;
    } finally {
      // Inner error handling may have reset headers; the id must still reach the caller.
      if (!ctx.headerSent) ctx.set(REQUEST_ID_HEADER, requestId);
      logger.info('request', {
        requestId,
        method: ctx.method,
        route: routeOf(ctx),
        status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      });
    }
  };
}
