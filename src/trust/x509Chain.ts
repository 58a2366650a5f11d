// X.509 chain validation for an `x5c` header (leaf first, trust anchor excluded): the checks of
// RFC 5280 path validation that apply to a chain we are handed whole. Each failure names the
// certificate by its position and subject, because it becomes the callback's errorDetails.
import { createHash, type webcrypto } from 'node:crypto';
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { certificateFromBase64, x509 } from '../crypto/x509.js';

type Certificate = x509.X509Certificate;

const OID = {
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  crlDistributionPoints: '2.5.29.31',
  certificatePolicies: '2.5.29.32',
  authorityKeyIdentifier: '2.5.29.35',
  extendedKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
} as const;

// A critical extension we do not process (name or policy constraints, say) must fail the path
// (RFC 5280, 4.2), or a constraint the CA relied on would be silently ignored.
const UNDERSTOOD = new Set<string>(Object.values(OID));

/** `certificate 2 (CN=Example CA)`: position from 1, leaf first. */
export const describeCertificate = (certificate: Certificate, index: number): string => `certificate ${index + 1} (${certificate.subject})`;

/** Decode an `x5c` value: a non-empty array of base64 DER certificates. */
export const parseX5c = (x5c: unknown): Either<string, Certificate[]> => {
  if (!Array.isArray(x5c) || x5c.length === 0) return left('x5c header missing or empty');
  const chain: Certificate[] = [];
  for (const [index, entry] of x5c.entries()) {
    const certificate = certificateFromBase64(entry);
    if (isLeft(certificate)) return left(`x5c entry ${index + 1} ${certificate.left}`);
    chain.push(certificate.right);
  }
  return right(chain);
};

const checkValidity = (certificate: Certificate, index: number, now: Date): string | undefined => {
  if (now < certificate.notBefore) return `${describeCertificate(certificate, index)} is not valid before ${certificate.notBefore.toISOString()}`;
  if (now > certificate.notAfter) return `${describeCertificate(certificate, index)} expired at ${certificate.notAfter.toISOString()}`;
  return undefined;
};

const checkCriticalExtensions = (certificate: Certificate, index: number): string | undefined => {
  const unknown = certificate.extensions.find((e) => e.critical && !UNDERSTOOD.has(e.type));
  return unknown ? `${describeCertificate(certificate, index)} has an unsupported critical extension ${unknown.type}` : undefined;
};

/** Whether `subject` names `issuer` as its issuer and carries its signature. */
export const isIssuedBy = async (subject: Certificate, issuer: Certificate): Promise<boolean> =>
  subject.issuer === issuer.subject && (await subject.verify({ publicKey: issuer, signatureOnly: true }).catch(() => false));

const checkLeaf = (leaf: Certificate): string | undefined => {
  const constraints = leaf.getExtension(x509.BasicConstraintsExtension);
  if (constraints?.ca) return `${describeCertificate(leaf, 0)} is a CA certificate, not a signing certificate`;
  const usage = leaf.getExtension(x509.KeyUsagesExtension);
  if (!usage) return `${describeCertificate(leaf, 0)} has no Key Usage extension`;
  if ((usage.usages & x509.KeyUsageFlags.digitalSignature) === 0) return `${describeCertificate(leaf, 0)} Key Usage lacks digitalSignature`;
  return undefined;
};

/** `intermediatesBelow`: CA certificates between this one and the leaf, for pathLenConstraint. */
const checkAuthority = (certificate: Certificate, index: number, intermediatesBelow: number): string | undefined => {
  const name = describeCertificate(certificate, index);
  const constraints = certificate.getExtension(x509.BasicConstraintsExtension);
  if (!constraints?.ca) return `${name} issues certificate ${index} but is not a CA (Basic Constraints cA is not true)`;
  if (constraints.pathLength !== undefined && intermediatesBelow > constraints.pathLength) {
    return `${name} path length constraint ${constraints.pathLength} exceeded by ${intermediatesBelow} intermediate certificate(s) below it`;
  }
  const usage = certificate.getExtension(x509.KeyUsagesExtension);
  if (!usage) return `${name} has no Key Usage extension`;
  if ((usage.usages & x509.KeyUsageFlags.keyCertSign) === 0) return `${name} Key Usage lacks keyCertSign`;
  return undefined;
};

// Every check of a chain but the validity periods depends on its bytes alone, and the same issuer
// chains come back with every presentation. So a chain that passed is kept, by the SHA-256 of its
// DER certificates (DER is self-delimiting, so their concatenation names the chain), until its
// earliest notAfter, and checked again against `now` only. Failures are never kept; anchoring and
// revocation are not part of this and are decided every time.
const VALIDATED_LIMIT = 256;
const validated = new Map<string, Date>();

const chainDigest = (chain: readonly Certificate[]): string => {
  const hash = createHash('sha256');
  for (const certificate of chain) hash.update(Buffer.from(certificate.rawData));
  return hash.digest('base64url');
};

const fullValidation = async (chain: readonly Certificate[], now: Date): Promise<Either<string, void>> => {
  const [leaf] = chain;
  if (!leaf) return left('empty certificate chain');
  const leafProblem = checkLeaf(leaf);
  if (leafProblem) return left(leafProblem);
  for (const [index, certificate] of chain.entries()) {
    const problem = checkValidity(certificate, index, now) ?? checkCriticalExtensions(certificate, index) ??
      (index > 0 ? checkAuthority(certificate, index, index - 1) : undefined);
    if (problem) return left(problem);
    const issuer = chain[index + 1];
    if (issuer && !(await isIssuedBy(certificate, issuer))) {
      return left(`${describeCertificate(certificate, index)} is not signed by ${describeCertificate(issuer, index + 1)}: broken chain`);
    }
  }
  return right(undefined);
};

/**
 * Validate a chain (leaf first) at `now`: every certificate within its validity period, signed by
 * the next one (name and signature), each issuing certificate a CA with keyCertSign whose path
 * length constraint holds, the leaf a non-CA with digitalSignature, no unknown critical extension.
 * Anchoring is separate (`findTrustAnchor`).
 */
export const validateChain = async (chain: readonly Certificate[], now: Date): Promise<Either<string, void>> => {
  const digest = chainDigest(chain);
  const expires = validated.get(digest);
  if (expires !== undefined) {
    if (now > expires) validated.delete(digest);
    // The first failure full validation would report, as the rest of it passed.
    for (const [index, certificate] of chain.entries()) {
      const problem = checkValidity(certificate, index, now);
      if (problem) return left(problem);
    }
    return right(undefined);
  }
  const result = await fullValidation(chain, now);
  if (isLeft(result)) return result;
  if (validated.size >= VALIDATED_LIMIT) validated.delete(validated.keys().next().value ?? '');
  validated.set(digest, new Date(Math.min(...chain.map((c) => c.notAfter.getTime()))));
  return result;
};

// Importing a public key costs about as much as the signature check it serves; the parsed
// certificates are kept (above), and their keys with them.
const verificationKeys = new WeakMap<Certificate, webcrypto.CryptoKey>();

/** The P-256 ECDSA verification key of `certificate`. Throws when it has none. */
export const verificationKeyOf = async (certificate: Certificate): Promise<webcrypto.CryptoKey> => {
  const known = verificationKeys.get(certificate);
  if (known) return known;
  const key = await certificate.publicKey.export({ name: 'ECDSA', namedCurve: 'P-256' }, ['verify']);
  verificationKeys.set(certificate, key);
  return key;
};

export const sameCertificate = (a: Certificate, b: Certificate): boolean => Buffer.from(a.rawData).equals(Buffer.from(b.rawData));

/**
 * The trust anchor the chain resolves to: the last certificate is an anchor itself (byte for
 * byte), or an anchor valid at `now` issued it. Undefined when none does.
 */
export const findTrustAnchor = async (chain: readonly Certificate[], anchors: readonly Certificate[], now: Date): Promise<Certificate | undefined> => {
  const last = chain[chain.length - 1];
  if (!last) return undefined;
  const itself = anchors.find((anchor) => sameCertificate(anchor, last));
  if (itself) return itself;
  for (const anchor of anchors) {
    if (now >= anchor.notBefore && now <= anchor.notAfter && (await isIssuedBy(last, anchor))) return anchor;
  }
  return undefined;
};

/**
 * DCQL `trusted_authorities` of type `aki` (OpenID4VP 1.0, 6.1.1): a value is the base64url
 * KeyIdentifier of an AuthorityKeyIdentifier, and matches when some certificate of the chain
 * carries exactly those bytes as its AuthorityKeyIdentifier.
 */
export const chainHasAuthorityKeyId = (chain: readonly Certificate[], keyIds: readonly string[]): boolean => {
  const wanted = new Set(keyIds.map((id) => Buffer.from(id, 'base64url').toString('hex')));
  return chain.some((certificate) => {
    const keyId = certificate.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
    return keyId !== undefined && wanted.has(keyId.toLowerCase());
  });
};

