// CBOR as ISO/IEC 18013-5 uses it, over cbor-x. Maps decode as `Map` (COSE headers and keys have
// integer labels, and an attacker's map must not reach `Object.prototype`); tag 24 (an embedded
// CBOR data item) decodes as a `Tag` holding the embedded bytes exactly as sent, so digests and
// signatures are computed over what the signer signed, never over a re-encoding.
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { Decoder, Encoder, Tag } from 'cbor-x';

export { Tag };

const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });
// `tagUint8Array: false`: a byte string is a plain bstr, never tag 64; definite lengths only.
const encoder = new Encoder({ mapsAsObjects: false, useRecords: false, tagUint8Array: false, variableMapSize: true });

export const encodeCbor = (value: unknown): Uint8Array => encoder.encode(value);

/** One CBOR data item, or why not (trailing bytes are refused: they would be unsigned). */
export const decodeCbor = (bytes: Uint8Array): Either<string, unknown> => {
  try {
    const items = decoder.decodeMultiple(bytes) as unknown[] | undefined;
    if (!items || items.length !== 1) return left('is not one CBOR data item');
    return right(items[0]);
  } catch {
    return left('is not well-formed CBOR');
  }
};

/** `#6.24(bstr)`: the embedded data item's bytes, or undefined. */
export const embeddedBytes = (value: unknown): Uint8Array | undefined =>
  value instanceof Tag && value.tag === 24 && value.value instanceof Uint8Array ? value.value : undefined;

/** `#6.24(bstr .cbor value)` as sent (the tag and the byte string around the embedded bytes). */
export const dataItemBytes = (embedded: Uint8Array): Uint8Array => encodeCbor(new Tag(embedded, 24));

/** Wrap `value` in tag 24 for encoding. */
export const dataItem = (value: unknown): Tag => new Tag(encodeCbor(value), 24);

export const isMap = (value: unknown): value is Map<unknown, unknown> => value instanceof Map;

export const isBytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array;

/** A map's text-keyed entry. */
export const field = (map: Map<unknown, unknown>, name: string): unknown => map.get(name);
