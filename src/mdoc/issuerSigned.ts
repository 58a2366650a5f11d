// IssuerSigned (ISO/IEC 18013-5, 8.3.2.1.2.2): the issuer's COSE_Sign1 over the
// MobileSecurityObject and the IssuerSignedItems a holder chose to return. Verifying it checks the
// signature by the x5chain leaf, the MSO, its validity, and that each returned item's digest
// (over its IssuerSignedItemBytes exactly as received) is the one the MSO lists under its
// namespace and digestID. Building it is the issuer's side of the same structure.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { x509 } from '../crypto/x509.js';
import { dataItem, dataItemBytes, decodeCbor, embeddedBytes, encodeCbor, isBytes, isMap, Tag } from './cbor.js';
import type { EcSigner } from '../crypto/signer.js';
import { cborToJson, tdate } from './claims.js';
import { jwkToCoseKey, parseCoseSign1, signCoseSign1, verifyByCertificate, x5chainCertificates, x5chainHeader, type CoseSign1 } from './cose.js';
import { DIGEST_ALGORITHMS, parseMobileSecurityObject, type MobileSecurityObject } from './mobileSecurityObject.js';
import { defineOwn } from '../ownProperty.js';

export interface IssuerSigned {
  /** namespace -> the embedded bytes of each IssuerSignedItemBytes, as received. */
  readonly nameSpaces: ReadonlyMap<string, readonly Uint8Array[]>;
  readonly issuerAuth: CoseSign1;
}

/** namespace -> elementIdentifier -> elementValue as JSON (see claims.ts). */
export type MdocClaims = Record<string, Record<string, unknown>>;

export interface VerifiedIssuerSigned {
  readonly mso: MobileSecurityObject;
  /** The x5chain, leaf (the document signer) first. */
  readonly chain: readonly x509.X509Certificate[];
  readonly claims: MdocClaims;
}

export const parseIssuerSigned = (value: unknown): Either<string, IssuerSigned> => {
  if (!isMap(value)) return left('IssuerSigned is not a map');
  const issuerAuth = parseCoseSign1(value.get('issuerAuth'), 'issuerAuth');
  if (isLeft(issuerAuth)) return issuerAuth;
  const nameSpaces = new Map<string, Uint8Array[]>();
  const given = value.get('nameSpaces') ?? new Map();
  if (!isMap(given)) return left('IssuerSigned nameSpaces is not a map');
  for (const [namespace, items] of given) {
    if (typeof namespace !== 'string' || !Array.isArray(items) || items.length === 0) return left('IssuerSigned nameSpaces is not {namespace: [IssuerSignedItemBytes]}');
    const embedded = items.map(embeddedBytes);
    if (embedded.some((bytes) => bytes === undefined)) return left(`IssuerSigned nameSpaces ${namespace} holds an item that is not IssuerSignedItemBytes (tag 24)`);
    nameSpaces.set(namespace, embedded as Uint8Array[]);
  }
  return right({ nameSpaces, issuerAuth: issuerAuth.right });
};

/** IssuerSigned from its CBOR bytes (the OpenID4VCI credential, base64url-decoded). */
export const decodeIssuerSigned = (bytes: Uint8Array): Either<string, IssuerSigned> => {
  const decoded = decodeCbor(bytes);
  return isLeft(decoded) ? left(`IssuerSigned ${decoded.left}`) : parseIssuerSigned(decoded.right);
};

const decodeMso = (issuerAuth: CoseSign1): Either<string, MobileSecurityObject> => {
  const payload = issuerAuth.payload ? decodeCbor(issuerAuth.payload) : left('is missing');
  if (isLeft(payload)) return left(`issuerAuth payload ${payload.left}`);
  const msoBytes = embeddedBytes(payload.right);
  if (!msoBytes) return left('issuerAuth payload is not MobileSecurityObjectBytes (tag 24)');
  const mso = decodeCbor(msoBytes);
  if (isLeft(mso)) return left(`MSO ${mso.left}`);
  return parseMobileSecurityObject(mso.right);
};

const checkValidity = (mso: MobileSecurityObject, leaf: x509.X509Certificate, now: Date): string | undefined => {
  const { signed, validFrom, validUntil } = mso.validityInfo;
  if (now < validFrom) return `MSO is not valid before ${validFrom.toISOString()}`;
  if (now >= validUntil) return `MSO expired at ${validUntil.toISOString()}`;
  // The document signer's certificate must have been valid when it signed (ISO/IEC 18013-5, 9.3.1).
  if (signed < leaf.notBefore || signed > leaf.notAfter) return `MSO signed at ${signed.toISOString()}, outside its signer certificate's validity`;
  return undefined;
};

interface IssuerSignedItem {
  readonly digestID: number;
  readonly elementIdentifier: string;
  readonly elementValue: unknown;
}

const parseItem = (embedded: Uint8Array, namespace: string): Either<string, IssuerSignedItem> => {
  const item = decodeCbor(embedded);
  if (isLeft(item) || !isMap(item.right)) return left(`an IssuerSignedItem of ${namespace} is not a CBOR map`);
  const digestID = item.right.get('digestID');
  const random = item.right.get('random');
  const elementIdentifier = item.right.get('elementIdentifier');
  if (typeof digestID !== 'number' || !Number.isSafeInteger(digestID) || !isBytes(random) || typeof elementIdentifier !== 'string' || !item.right.has('elementValue')) {
    return left(`an IssuerSignedItem of ${namespace} lacks digestID, random, elementIdentifier or elementValue`);
  }
  return right({ digestID, elementIdentifier, elementValue: item.right.get('elementValue') });
};

/** Every returned item, checked against the MSO's digests, as JSON claims. */
const verifiedClaims = (issuerSigned: IssuerSigned, mso: MobileSecurityObject): Either<string, MdocClaims> => {
  const hash = DIGEST_ALGORITHMS.get(mso.digestAlgorithm) ?? 'sha256';
  const claims: MdocClaims = {};
  for (const [namespace, items] of issuerSigned.nameSpaces) {
    const digests = mso.valueDigests.get(namespace);
    if (!digests) return left(`namespace ${namespace} has no valueDigests in the MSO`);
    const elements: Record<string, unknown> = {};
    const seen = new Set<number>();
    for (const embedded of items) {
      const item = parseItem(embedded, namespace);
      if (isLeft(item)) return item;
      const { digestID, elementIdentifier } = item.right;
      const name = `${namespace}/${elementIdentifier}`;
      if (seen.has(digestID) || Object.hasOwn(elements, elementIdentifier)) return left(`element ${name} is returned twice`);
      seen.add(digestID);
      const expected = digests.get(digestID);
      if (!expected) return left(`element ${name} has a digestID the MSO does not list`);
      const actual = createHash(hash).update(dataItemBytes(embedded)).digest();
      if (!actual.equals(Buffer.from(expected))) return left(`element ${name} does not match its digest in the MSO`);
      defineOwn(elements, elementIdentifier, cborToJson(item.right.elementValue));
    }
    defineOwn(claims, namespace, elements);
  }
  return right(claims);
};

/**
 * The issuer-signed part of an mdoc, verified: issuerAuth by its x5chain leaf (the chain's trust is
 * judged by the caller), the MSO, its docType, its validity at `now`, and every returned element's digest.
 */
export const verifyIssuerSigned = (issuerSigned: IssuerSigned, expected: { readonly docType: string; readonly now: Date }): Either<string, VerifiedIssuerSigned> => {
  const chain = x5chainCertificates(issuerSigned.issuerAuth, 'issuerAuth');
  if (isLeft(chain)) return chain;
  const [leaf] = chain.right;
  if (!leaf || !verifyByCertificate(issuerSigned.issuerAuth, leaf)) return left('issuerAuth signature does not verify with the x5chain leaf certificate key');
  const mso = decodeMso(issuerSigned.issuerAuth);
  if (isLeft(mso)) return mso;
  if (mso.right.docType !== expected.docType) return left(`MSO docType ${mso.right.docType} is not ${expected.docType}`);
  const invalid = checkValidity(mso.right, leaf, expected.now);
  if (invalid) return left(invalid);
  const claims = verifiedClaims(issuerSigned, mso.right);
  if (isLeft(claims)) return claims;
  return right({ mso: mso.right, chain: chain.right, claims: claims.right });
};

// --- issuing

export interface IssuerSignedInput {
  readonly docType: string;
  /** namespace -> elementIdentifier -> CBOR element value (see claims.ts for dates). */
  readonly nameSpaces: ReadonlyMap<string, ReadonlyMap<string, unknown>>;
  readonly deviceKey: JWK;
  readonly validFrom: Date;
  readonly validUntil: Date;
  /** `{status_list: {idx, uri}}` */
  readonly status?: { readonly status_list: { readonly idx: number; readonly uri: string } };
  /** The document signer's signer (src/crypto/signer.ts) and its chain as `x5chain` DER. */
  readonly signer: { readonly signer: EcSigner; readonly x5chain: readonly Uint8Array[] };
  readonly now: Date;
}

// A holder discloses items one by one: each needs its own salt (at least 16 bytes, ISO/IEC
// 18013-5, 9.1.2.5) so an undisclosed value cannot be guessed from its digest, and digest IDs are
// random so their order says nothing about the elements.
const RANDOM_BYTES = 32;
const DIGEST_ID_LIMIT = 2 ** 31;

const uniqueDigestIds = (count: number): number[] => {
  const ids = new Set<number>();
  while (ids.size < count) ids.add(randomInt(DIGEST_ID_LIMIT));
  return [...ids];
};

/** A signed IssuerSigned (its CBOR bytes) for the device key, MSO 1.0 with SHA-256 digests. */
export const buildIssuerSigned = async (input: IssuerSignedInput): Promise<Uint8Array> => {
  const nameSpaces = new Map<string, Tag[]>();
  const valueDigests = new Map<string, Map<number, Uint8Array>>();
  for (const [namespace, elements] of input.nameSpaces) {
    const ids = uniqueDigestIds(elements.size);
    const items: Tag[] = [];
    const digests = new Map<number, Uint8Array>();
    [...elements].forEach(([elementIdentifier, elementValue], index) => {
      const digestID = ids[index] ?? 0;
      const item = dataItem(new Map<string, unknown>([
        ['digestID', digestID],
        ['random', randomBytes(RANDOM_BYTES)],
        ['elementIdentifier', elementIdentifier],
        ['elementValue', elementValue],
      ]));
      items.push(item);
      digests.set(digestID, createHash('sha256').update(encodeCbor(item)).digest());
    });
    nameSpaces.set(namespace, items);
    valueDigests.set(namespace, digests);
  }
  const mso = new Map<string, unknown>([
    ['version', '1.0'],
    ['digestAlgorithm', 'SHA-256'],
    ['valueDigests', valueDigests],
    ['deviceKeyInfo', new Map([['deviceKey', jwkToCoseKey(input.deviceKey)]])],
    ['docType', input.docType],
    ['validityInfo', new Map([['signed', tdate(input.now)], ['validFrom', tdate(input.validFrom)], ['validUntil', tdate(input.validUntil)]])],
    ...(input.status ? [['status', new Map([['status_list', new Map<string, unknown>([['idx', input.status.status_list.idx], ['uri', input.status.status_list.uri]])]])] as [string, unknown]] : []),
  ]);
  const issuerAuth = await signCoseSign1(encodeCbor(dataItem(mso)), input.signer.signer, x5chainHeader(input.signer.x5chain));
  return encodeCbor(new Map<string, unknown>([['nameSpaces', nameSpaces], ['issuerAuth', issuerAuth]]));
};
