// COSE_Sign1 (RFC 9052, 4.2) with ES256 (-7) only, as HAIP requires for mdocs, and the EC2 P-256
// COSE_Key (RFC 9053, 7.1.1) of a device key. The signature is over Sig_structure
// ["Signature1", protected, external_aad = h'', payload], with the protected header's bytes as sent.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import type { EcSigner } from '../crypto/signer.js';
import { x509 } from '../crypto/x509.js';
import { decodeCbor, encodeCbor, isBytes, isMap, Tag } from './cbor.js';

export const COSE_ALG_ES256 = -7;
const HEADER_ALG = 1;
const HEADER_X5CHAIN = 33;
/** `typ` (RFC 9596): the media type of the whole COSE object, protected. */
export const HEADER_TYP = 16;
export const COSE_SIGN1_TAG = 18;

export interface CoseSign1 {
  readonly protectedBytes: Uint8Array;
  readonly protectedHeader: Map<unknown, unknown>;
  readonly unprotectedHeader: Map<unknown, unknown>;
  /** Null when detached (a device signature over DeviceAuthenticationBytes). */
  readonly payload: Uint8Array | null;
  readonly signature: Uint8Array;
}

export const parseCoseSign1 = (value: unknown, name: string): Either<string, CoseSign1> => {
  const untagged = value instanceof Tag && value.tag === COSE_SIGN1_TAG ? value.contents : value;
  if (!Array.isArray(untagged) || untagged.length !== 4) return left(`${name} is not a COSE_Sign1`);
  const [protectedBytes, unprotectedHeader, payload, signature] = untagged as unknown[];
  if (!isBytes(protectedBytes) || !isMap(unprotectedHeader) || !(payload === null || isBytes(payload)) || !isBytes(signature)) {
    return left(`${name} is not a COSE_Sign1`);
  }
  let protectedHeader: Map<unknown, unknown> = new Map();
  if (protectedBytes.length > 0) {
    const decoded = decodeCbor(protectedBytes);
    if (isLeft(decoded) || !isMap(decoded.right)) return left(`${name} protected header is not a CBOR map`);
    protectedHeader = decoded.right;
  }
  const alg = protectedHeader.get(HEADER_ALG);
  if (alg !== COSE_ALG_ES256) return left(`${name} alg is ${JSON.stringify(alg ?? null)}, expected ES256 (-7) in the protected header`);
  return right({ protectedBytes, protectedHeader, unprotectedHeader, payload, signature });
};

/** The DER certificates of `x5chain` (RFC 9360), leaf first; protected or unprotected, one bstr or an array. */
export const x5chainOf = (sign1: CoseSign1): Either<string, Uint8Array[]> => {
  const value = sign1.protectedHeader.get(HEADER_X5CHAIN) ?? sign1.unprotectedHeader.get(HEADER_X5CHAIN);
  if (isBytes(value)) return right([value]);
  if (Array.isArray(value) && value.length > 0 && value.every(isBytes)) return right(value);
  return left('x5chain header missing or not one or more DER certificates');
};

// Parsing a certificate costs more than verifying a signature, and the same signers come back
// with every presentation; parsed certificates are immutable, so they are kept.
const PARSED_LIMIT = 256;
const parsed = new Map<string, x509.X509Certificate>();

const certificateOf = (der: Uint8Array): x509.X509Certificate => {
  const key = Buffer.from(der).toString('base64');
  const known = parsed.get(key);
  if (known) return known;
  const certificate = new x509.X509Certificate(der);
  if (parsed.size >= PARSED_LIMIT) parsed.delete(parsed.keys().next().value ?? '');
  parsed.set(key, certificate);
  return certificate;
};

/** The `x5chain` as certificates, leaf first; `name` names the COSE_Sign1 in the reason. */
export const x5chainCertificates = (sign1: CoseSign1, name: string): Either<string, x509.X509Certificate[]> => {
  const ders = x5chainOf(sign1);
  if (isLeft(ders)) return left(`${name} ${ders.left}`);
  try {
    return right(ders.right.map(certificateOf));
  } catch {
    return left(`${name} x5chain holds something that is not a DER X.509 certificate`);
  }
};

/** Whether the attached payload's signature verifies with the certificate's key. */
export const verifyByCertificate = (sign1: CoseSign1, certificate: x509.X509Certificate): boolean => {
  try {
    return verifyCoseSign1(sign1, publicKeyOf(new Uint8Array(certificate.publicKey.rawData)));
  } catch {
    return false;
  }
};

const sigStructure = (protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array =>
  encodeCbor(['Signature1', protectedBytes, new Uint8Array(0), payload]);

/** Whether the signature verifies over `payload` (the attached one, or `detached`). */
export const verifyCoseSign1 = (sign1: CoseSign1, key: KeyObject, detached?: Uint8Array): boolean => {
  const payload = detached ?? sign1.payload;
  if (!payload || sign1.signature.length !== 64) return false;
  try {
    return verify('sha256', sigStructure(sign1.protectedBytes, payload), { key, dsaEncoding: 'ieee-p1363' }, sign1.signature);
  } catch {
    return false;
  }
};

export interface CoseSign1Options {
  /** Leaves the payload out (null) while signing over it. */
  readonly detached?: boolean;
  /** Parameters added to the protected header after `alg`. */
  readonly protectedHeader?: Map<number, unknown>;
}

/**
 * A COSE_Sign1 to sign with ES256: `toBeSigned` (the Sig_structure) and `withSignature`, which
 * gives the array `[protected, unprotected, payload, signature]` around a raw r||s signature.
 */
export const coseSign1ToSign = (
  payload: Uint8Array,
  unprotectedHeader: Map<number, unknown> = new Map(),
  options: CoseSign1Options = {},
): { readonly toBeSigned: Uint8Array; readonly withSignature: (signature: Uint8Array) => unknown[] } => {
  const protectedBytes = encodeCbor(new Map<number, unknown>([[HEADER_ALG, COSE_ALG_ES256], ...(options.protectedHeader ?? [])]));
  return {
    toBeSigned: sigStructure(protectedBytes, payload),
    withSignature: (signature) => [protectedBytes, unprotectedHeader, options.detached ? null : payload, signature],
  };
};

/** A COSE_Sign1 array signed with ES256 by `signer` (src/crypto/signer.ts); see coseSign1ToSign. */
export const signCoseSign1 = async (
  payload: Uint8Array,
  signer: EcSigner,
  unprotectedHeader: Map<number, unknown> = new Map(),
  options: CoseSign1Options = {},
): Promise<unknown[]> => {
  const toSign = coseSign1ToSign(payload, unprotectedHeader, options);
  return toSign.withSignature(await signer.sign(toSign.toBeSigned));
};

export const x5chainHeader = (certificates: readonly Uint8Array[]): Map<number, unknown> =>
  new Map([[HEADER_X5CHAIN, certificates.length === 1 ? certificates[0] : [...certificates]]]);

// COSE_Key labels (RFC 9052, 7.1; RFC 9053, 7.1.1)
const KTY = 1;
const KTY_EC2 = 2;
const CRV = -1;
const CRV_P256 = 1;
const X = -2;
const Y = -3;

/** An EC2 P-256 COSE_Key as a public JWK (checked to be a point on the curve), or why not. */
export const coseKeyToJwk = (value: unknown): Either<string, JWK> => {
  if (!isMap(value)) return left('is not a COSE_Key');
  const x = value.get(X);
  const y = value.get(Y);
  if (value.get(KTY) !== KTY_EC2 || value.get(CRV) !== CRV_P256 || !isBytes(x) || !isBytes(y) || x.length !== 32 || y.length !== 32) {
    return left('is not an EC2 P-256 COSE_Key');
  }
  const jwk: JWK = { kty: 'EC', crv: 'P-256', x: Buffer.from(x).toString('base64url'), y: Buffer.from(y).toString('base64url') };
  try {
    createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    return left('is not a point on P-256');
  }
  return right(jwk);
};

/** The COSE_Key of a P-256 public JWK (an MSO's `deviceKeyInfo.deviceKey`). */
export const jwkToCoseKey = (jwk: JWK): Map<number, unknown> => {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new Error('not a P-256 public JWK');
  return new Map<number, unknown>([
    [KTY, KTY_EC2],
    [CRV, CRV_P256],
    [X, Buffer.from(jwk.x, 'base64url')],
    [Y, Buffer.from(jwk.y, 'base64url')],
  ]);
};

/** A P-256 public key for verifying, from a JWK or an SPKI DER. */
export const publicKeyOf = (key: JWK | Uint8Array): KeyObject =>
  key instanceof Uint8Array ? createPublicKey({ key: Buffer.from(key), format: 'der', type: 'spki' }) : createPublicKey({ key, format: 'jwk' });
