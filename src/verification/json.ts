// JSON as it arrives in JWS payloads and disclosures: untrusted, so parsed without throwing.

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON value of UTF-8 bytes or text, or undefined when it is not JSON. */
export const parseJson = (input: Uint8Array | string): unknown => {
  try {
    return JSON.parse(typeof input === 'string' ? input : Buffer.from(input).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
};
