// Reading request bodies without a body-parser: the edge needs exactly two formats, a hard size
// limit and problem-shaped rejections, and owning ~100 lines is simpler than configuring a
// dependency to do all three.
import type { Context } from 'koa';
import { parseBoundedJson } from './boundedJson.js';
import type { Problem } from './problem.js';
import { HttpError, contentTooLarge, invalidRequest, unsupportedMediaType } from './problem.js';

export interface BodyOptions {
  /** Bodies larger than this are rejected with 413 before or while reading. */
  readonly limitBytes: number;
}

/** Form fields by name; a name sent more than once maps to all its values in order. */
export type FormFields = Readonly<Record<string, string | readonly string[]>>;

/**
 * The request body parsed as JSON. Requires `application/json` or any `+json` type (e.g.
 * `application/merge-patch+json`), charset UTF-8 if given. Throws HttpError: 415 for another
 * media type or a content coding, 413 over the limit, 400 for an empty or malformed body or one
 * outside JSON_LIMITS.
 */
export async function readJson(ctx: Context, options: BodyOptions): Promise<unknown> {
  requireMediaType(ctx, isJsonType, 'application/json');
  const text = await readText(ctx, options);
  if (text.trim() === '') throw new HttpError(badBody('The request body is empty; expected a JSON document.'));
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) throw new HttpError(badBody(`The request body is ${parsed.reason}.`));
  return parsed.value;
}

/**
 * The request body parsed as `application/x-www-form-urlencoded` (charset UTF-8 if given).
 * Repeated names are kept as arrays so a codec expecting a string rejects them: OAuth requires
 * that parameters appear at most once.
 */
export async function readForm(ctx: Context, options: BodyOptions): Promise<FormFields> {
  requireMediaType(ctx, (type) => type === 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded');
  const text = await readText(ctx, options);
  // Null prototype: field names are attacker-chosen (`__proto__`, `constructor`).
  const fields = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = fields[name];
    if (seen === undefined) fields[name] = value;
    else if (typeof seen === 'string') fields[name] = [seen, value];
    else seen.push(value);
  }
  return fields;
}

const badBody = (message: string): Problem => invalidRequest(message, [{ location: 'body', message, value: undefined }]);

const isJsonType = (type: string): boolean => type === 'application/json' || /^application\/[^/;\s]+\+json$/.test(type);

interface MediaType {
  readonly type: string;
  readonly charset: string | undefined;
}

function parseContentType(header: string): MediaType | undefined {
  const [typePart, ...params] = header.split(';');
  const type = (typePart ?? '').trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) return undefined;
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() === 'charset') {
      charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    }
  }
  return { type, charset };
}

function requireMediaType(ctx: Context, accepts: (type: string) => boolean, expected: string): void {
  const media = parseContentType(ctx.get('Content-Type'));
  if (media === undefined || !accepts(media.type)) {
    throw new HttpError(unsupportedMediaType(`Expected Content-Type ${expected}.`));
  }
  if (media.charset !== undefined && media.charset !== 'utf-8' && media.charset !== 'utf8') {
    throw new HttpError(unsupportedMediaType('Expected charset utf-8.'));
  }
  const coding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity') {
    // Decompressing would let a small upload expand past the limit; nothing legitimate sends it.
    throw new HttpError(unsupportedMediaType('Content-Encoding is not supported.'));
  }
}

async function readText(ctx: Context, { limitBytes }: BodyOptions): Promise<string> {
  const declared = ctx.get('Content-Length');
  if (declared !== '' && /^\d+$/.test(declared) && Number(declared) > limitBytes) {
    throw tooLarge(limitBytes);
  }
  const bytes = await readLimited(ctx, limitBytes);
  try {
    // fatal: invalid UTF-8 is a client error, not something to paper over with U+FFFD.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(badBody('The request body is not valid UTF-8.'));
  }
}

// Close the connection: the rest of an oversized upload is not worth reading to keep it alive.
const tooLarge = (limitBytes: number): HttpError => new HttpError(contentTooLarge(limitBytes), { Connection: 'close' });

function readLimited(ctx: Context, limitBytes: number): Promise<Buffer> {
  const req = ctx.req;
  return new Promise<Buffer>((resolve, reject) => {
    // A second read would wait forever for an 'end' that already happened: a programming error.
    if (req.readableEnded || req.readableDidRead) {
      reject(new Error('request body was already read'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const failed = (): void => {
      cleanup();
      reject(new HttpError(badBody('The request body could not be read.')));
    };
    const onError = failed;
    const onAborted = failed;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
