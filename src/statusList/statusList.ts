// The Status List of draft-ietf-oauth-status-list (section 4): a byte array in which each
// Referenced Token's status is a block of `bits` bits (1, 2, 4 or 8), packed from the least
// significant bit of each byte, DEFLATE-compressed in the ZLIB format (RFC 1950) and carried as
// base64url (`lst`). Decoding is bounded: a list is untrusted input until its token verified,
// and a few bytes of DEFLATE can inflate to gigabytes.
import { deflateSync, inflateSync, constants } from 'node:zlib';
import { left, right, type Either } from 'fp-ts/lib/Either.js';

/** The Status List Token's JWT `typ` and media type (section 5.1), which issuer and verifier both name. */
export const STATUS_LIST_TYP = 'statuslist+jwt';
export const STATUS_LIST_MEDIA_TYPE = 'application/statuslist+jwt';
/** The CWT form's media type (section 5.2), also its COSE `typ` (16) header. */
export const STATUS_LIST_CWT_MEDIA_TYPE = 'application/statuslist+cwt';
/** The CWT claim keys the Status List Token uses (RFC 8392, 4; the draft's section 5.2: `status_list`, `ttl`). */
export const CWT_CLAIM = { sub: 2, exp: 4, nbf: 5, iat: 6, statusList: 65533, ttl: 65534 } as const;

export type Bits = 1 | 2 | 4 | 8;

const isBits = (value: unknown): value is Bits => value === 1 || value === 2 || value === 4 || value === 8;

export interface StatusList {
  readonly bits: Bits;
  /** The uncompressed byte array. */
  readonly bytes: Uint8Array;
}

/** How many statuses the list holds: every whole block of its bytes. */
export const sizeOf = (list: StatusList): number => (list.bytes.length * 8) / list.bits;

/** The status at `idx`, or undefined when the index lies outside the list. */
export const statusAt = (list: StatusList, idx: number): number | undefined => {
  if (!Number.isSafeInteger(idx) || idx < 0 || idx >= sizeOf(list)) return undefined;
  const bit = idx * list.bits;
  return (list.bytes[bit >> 3]! >> (bit & 7)) & ((1 << list.bits) - 1);
};

/** A list of `size` statuses, all VALID but those given. */
export const buildStatusList = (bits: Bits, size: number, statuses: Iterable<readonly [idx: number, status: number]>): StatusList => {
  if (!Number.isSafeInteger(size) || size <= 0 || (size * bits) % 8 !== 0) throw new Error(`a status list of ${size} ${bits}-bit statuses does not fill whole bytes`);
  const bytes = new Uint8Array((size * bits) / 8);
  const mask = (1 << bits) - 1;
  for (const [idx, status] of statuses) {
    if (!Number.isSafeInteger(idx) || idx < 0 || idx >= size) throw new Error(`status index ${idx} outside a list of ${size}`);
    if (!Number.isInteger(status) || status < 0 || status > mask) throw new Error(`status ${status} does not fit in ${bits} bits`);
    const bit = idx * bits;
    const byte = bit >> 3;
    bytes[byte] = (bytes[byte]! & ~(mask << (bit & 7))) | (status << (bit & 7));
  }
  return { bits, bytes };
};

/** The byte array at the highest compression level (the draft recommends it): the CWT's `lst`. */
export const compressList = (list: StatusList): Buffer => deflateSync(list.bytes, { level: constants.Z_BEST_COMPRESSION });

/** The JWT's `lst`: the compressed array, base64url. */
export const encodeLst = (list: StatusList): string => compressList(list).toString('base64url');

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Reads a JWT's `lst` back; `maxBytes` bounds the uncompressed array. Left is why it is not a status list. */
export const decodeLst = (lst: unknown, bits: unknown, maxBytes: number): Either<string, StatusList> => {
  if (typeof lst !== 'string' || lst === '' || !BASE64URL.test(lst)) return left('status_list.lst is not base64url');
  return decompressList(Buffer.from(lst, 'base64url'), bits, maxBytes);
};

/** Reads a CWT's `lst` (the compressed bytes) back, bounded as `decodeLst`. */
export const decompressList = (compressed: Uint8Array, bits: unknown, maxBytes: number): Either<string, StatusList> => {
  if (!isBits(bits)) return left('status_list.bits is not 1, 2, 4 or 8');
  let bytes: Buffer;
  try {
    bytes = inflateSync(compressed, { maxOutputLength: maxBytes });
  } catch (err) {
    return left(
      (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
        ? `status_list.lst decompresses to more than ${maxBytes} bytes`
        : 'status_list.lst is not DEFLATE data in the ZLIB format',
    );
  }
  if (bytes.length === 0) return left('status_list.lst holds no statuses');
  return right({ bits, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) });
};
