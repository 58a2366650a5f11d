// JSON and JOSE headers as they arrive in presentations: untrusted, so read without throwing.
import { parseBoundedJson } from '../http/boundedJson.js';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
