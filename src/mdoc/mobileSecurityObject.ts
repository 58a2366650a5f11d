// The MobileSecurityObject (ISO/IEC 18013-5, 9.1.2.4): what the issuer signs in `issuerAuth`:
// the digest of every IssuerSignedItem per namespace, the device key, the docType, the validity,
// and (draft-ietf-oauth-status-list, the mdoc binding) a status list reference.
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { coseKeyToJwk } from './cose.js';
import { isBytes, isMap } from './cbor.js';
import { cborToJson } from './claims.js';

/** ISO/IEC 18013-5 digest algorithm names and their node:crypto names (a Map: the name comes from the MSO). */
export const DIGEST_ALGORITHMS: ReadonlyMap<string, string> = new Map([['SHA-256', 'sha256'], ['SHA-384', 'sha384'], ['SHA-512', 'sha512']]);

export interface ValidityInfo {
  readonly signed: Date;
  readonly validFrom: Date;
  readonly validUntil: Date;
}

export interface MobileSecurityObject {
  readonly version: string;
  readonly digestAlgorithm: string;
  /** namespace -> digestID -> digest */
  readonly valueDigests: ReadonlyMap<string, ReadonlyMap<number, Uint8Array>>;
  readonly deviceKey: JWK;
  readonly docType: string;
  readonly validityInfo: ValidityInfo;
  /** `status` as JSON (`{status_list: {idx, uri}}`), when the MSO has one. */
  readonly status?: unknown;
}

const isTdate = (value: unknown): value is Date => value instanceof Date && !Number.isNaN(value.getTime());

const parseValueDigests = (value: unknown): Either<string, Map<string, Map<number, Uint8Array>>> => {
  if (!isMap(value)) return left('MSO valueDigests is not a map');
  const out = new Map<string, Map<number, Uint8Array>>();
  for (const [namespace, digests] of value) {
    if (typeof namespace !== 'string' || !isMap(digests)) return left('MSO valueDigests is not {namespace: {digestID: digest}}');
    const byId = new Map<number, Uint8Array>();
    for (const [id, digest] of digests) {
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0 || !isBytes(digest)) {
        return left(`MSO valueDigests of ${namespace} is not {digestID: digest}`);
      }
      byId.set(id, digest);
    }
    out.set(namespace, byId);
  }
  return right(out);
};

const parseValidityInfo = (value: unknown): Either<string, ValidityInfo> => {
  if (!isMap(value)) return left('MSO validityInfo is not a map');
  const signed = value.get('signed');
  const validFrom = value.get('validFrom');
  const validUntil = value.get('validUntil');
  if (!isTdate(signed) || !isTdate(validFrom) || !isTdate(validUntil)) return left('MSO validityInfo lacks signed, validFrom or validUntil as tdate');
  if (validUntil <= validFrom) return left('MSO validityInfo validUntil is not after validFrom');
  return right({ signed, validFrom, validUntil });
};

/** The decoded MobileSecurityObject (the content of MobileSecurityObjectBytes), or why it is not one. */
export const parseMobileSecurityObject = (value: unknown): Either<string, MobileSecurityObject> => {
  if (!isMap(value)) return left('MSO is not a map');
  const version = value.get('version');
  if (version !== '1.0') return left(`MSO version is ${JSON.stringify(version ?? null)}, expected "1.0"`);
  const digestAlgorithm = value.get('digestAlgorithm');
  if (typeof digestAlgorithm !== 'string' || !DIGEST_ALGORITHMS.has(digestAlgorithm)) {
    return left(`MSO digestAlgorithm ${JSON.stringify(digestAlgorithm ?? null)} is not SHA-256, SHA-384 or SHA-512`);
  }
  const valueDigests = parseValueDigests(value.get('valueDigests'));
  if (isLeft(valueDigests)) return valueDigests;
  const deviceKeyInfo = value.get('deviceKeyInfo');
  if (!isMap(deviceKeyInfo)) return left('MSO deviceKeyInfo is not a map');
  const deviceKey = coseKeyToJwk(deviceKeyInfo.get('deviceKey'));
  if (isLeft(deviceKey)) return left(`MSO deviceKey ${deviceKey.left}`);
  const docType = value.get('docType');
  if (typeof docType !== 'string') return left('MSO docType is not a string');
  const validityInfo = parseValidityInfo(value.get('validityInfo'));
  if (isLeft(validityInfo)) return validityInfo;
  const status = value.get('status');
  return right({
    version,
    digestAlgorithm,
    valueDigests: valueDigests.right,
    deviceKey: deviceKey.right,
    docType,
    validityInfo: validityInfo.right,
    ...(status === undefined ? {} : { status: cborToJson(status) }),
  });
};
