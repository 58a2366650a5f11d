// CBOR as ISO/IEC 18013-5 uses it, over cbor2. Maps decode as `Map` (COSE headers and keys have
// integer labels, and an attacker's map must not reach `Object.prototype`), duplicate keys are
// refused, and the tags an mdoc uses are decoded by this module's own table on every call (never a
// process-wide registry another library could change): tag 24 (an embedded CBOR data item) keeps
// the embedded bytes exactly as sent, so digests and signatures are computed over what the signer
// signed, never over a re-encoding; tdate (tag 0) becomes a Date; full-dates stay tagged.
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { decode, encode, Tag, TypeEncoderMap, type TagDecoder, type TagNumber } from 'cbor2';

export { Tag };

const TAGS = new Map<TagNumber, TagDecoder>([
  [0, (tag) => {
    const date = typeof tag.contents === 'string' ? new Date(tag.contents) : undefined;
    if (!date || Number.isNaN(date.getTime())) throw new Error('tdate is not a date-time');
    return date;
  }],
  [1, (tag) => tag],
  [18, (tag) => tag],
  [24, (tag) => tag],
  [100, (tag) => tag],
  [1004, (tag) => tag],
]);

// A Node Buffer (a digest, random bytes) is a byte string, not the JSON object cbor2 would make of it.
const TYPES = new TypeEncoderMap();
TYPES.registerEncoder(Buffer, (buffer) => [NaN, new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)]);

export const encodeCbor = (value: unknown): Uint8Array => encode(value, { types: TYPES });

/** One CBOR data item, or why not (trailing bytes are refused: they would be unsigned). */
export const decodeCbor = (bytes: Uint8Array): Either<string, unknown> => {
  try {
    return right(decode(bytes, { preferMap: true, rejectDuplicateKeys: true, tags: TAGS }));
  } catch {
    return left('is not one well-formed CBOR data item');
  }
};

/** `#6.24(bstr)`: the embedded data item's bytes, or undefined. */
export const embeddedBytes = (value: unknown): Uint8Array | undefined =>
  value instanceof Tag && value.tag === 24 && value.contents instanceof Uint8Array ? value.contents : undefined;

/** `#6.24(bstr .cbor value)` around embedded bytes as received: what an item's digest covers. */
export const dataItemBytes = (embedded: Uint8Array): Uint8Array => encodeCbor(new Tag(24, embedded));

/** Wrap `value` in tag 24 for encoding. */
export const dataItem = (value: unknown): Tag => new Tag(24, encodeCbor(value));

export const isMap = (value: unknown): value is Map<unknown, unknown> => value instanceof Map;

export const isBytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array;
