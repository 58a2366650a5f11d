// JSON and JOSE headers as they arrive in presentations: untrusted, so read without throwing.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { parseBoundedJson } from '../http/boundedJson.js';

/** The JSON value of UTF-8 bytes or text, or undefined when it is not JSON within JSON_LIMITS. */
export const parseJson = (input: Uint8Array | string): unknown => {
  const parsed = parseBoundedJson(typeof input === 'string' ? input : Buffer.from(input).toString('utf8'));
  return parsed.ok ? parsed.value : undefined;
};

/**
 * A JOSE `typ` compared as RFC 7515 (4.1.9) says media types are: case-insensitively, with the
 * `application/` prefix optional.
 */
export const typIs = (typ: unknown, expected: string): boolean =>
  typeof typ === 'string' && typ.toLowerCase().replace(/^application\//, '') === expected;

/** A JWT NumericDate claim (RFC 7519): absent, or seconds since the epoch as a JSON number. */
export const numericDate = (payload: Record<string, unknown>, name: string): Either<string, Date | undefined> => {
  const value = payload[name];
  if (value === undefined) return right(undefined);
  const date = typeof value === 'number' ? new Date(value * 1000) : undefined;
  return date && !Number.isNaN(date.getTime()) ? right(date) : left(`${name} is not a NumericDate`);
};
