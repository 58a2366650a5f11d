// P-256 keys and X.509 certificates: the connector's two signing identities (the Relying Party's
// access certificate and the Issuer Signing Certificate), development chains, CRLs for tests and
// operators, PEM and `x5c` encodings.
//
// Everything is ES256 (HAIP). Certificates carry SubjectKeyIdentifier/AuthorityKeyIdentifier so a
// verifier can match issuers by key, not only by name.
import { createHash, webcrypto } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { exportJWK, type JWK } from 'jose';
import type { Logger } from '../log.js';
import { keySigner, type EcSigner } from './signer.js';
import { x509 } from './x509.js';

export type CryptoKey = webcrypto.CryptoKey;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
export const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** An extractable P-256 key pair (extractable so it can be written as PKCS#8). */
export const generateP256KeyPair = async (): Promise<CryptoKeyPair> =>
  webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);

/** A certificate together with the key pair it certifies. */
export interface CertifiedKey {
  readonly certificate: x509.X509Certificate;
  readonly keys: CryptoKeyPair;
}

export interface SubjectAltName {
  /** dNSName, uniformResourceIdentifier or iPAddress (v4 or v6, without brackets). */
  readonly type: 'dns' | 'url' | 'ip';
  readonly value: string;
}

/** The subjectAltName naming the host of `url`: an iPAddress when the host is an address, else a dNSName. */
export const hostSubjectAltName = (url: string): SubjectAltName => {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? { type: 'dns', value: host } : { type: 'ip', value: host };
};

// WHATWG URL parsing writes an IPv6 address in one canonical form; certificates may spell it otherwise.
const canonicalIp = (ip: string): string => (isIP(ip) === 6 ? new URL(`http://[${ip}]`).hostname : ip);

const sameName = (a: SubjectAltName, b: SubjectAltName): boolean =>
  a.type === b.type && (a.type === 'ip' ? canonicalIp(a.value) === canonicalIp(b.value) : a.value === b.value);

/** The dNSName, uniformResourceIdentifier and iPAddress entries of a certificate's subjectAltName. */
export const subjectAltNamesOf = (certificate: x509.X509Certificate): SubjectAltName[] =>
  (certificate.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? []).flatMap((n): SubjectAltName[] =>
    n.type === 'dns' || n.type === 'url' || n.type === 'ip' ? [{ type: n.type, value: n.value }] : [],
  );

/**
 * Whether wallets that check `iss` against the `x5c` leaf accept `issuer` for this certificate: a
 * uniformResourceIdentifier equal to it, or a dNSName equal to its host (SD-JWT VC issuer key
 * resolution by X.509, as the OpenWallet Foundation's libraries implement it).
 */
export const namesIssuer = (certificate: x509.X509Certificate, issuer: string): boolean => {
  const host = new URL(issuer).hostname;
  return subjectAltNamesOf(certificate).some((n) => (n.type === 'url' && n.value === issuer) || (n.type === 'dns' && n.value === host));
};

/** `dns:host`, `uri:https://...` or `ip:address`, for messages. */
export const describeSubjectAltName = (n: SubjectAltName): string => `${n.type === 'url' ? 'uri' : n.type}:${n.value}`;

export interface CertificateOptions {
  /** The subject common name. */
  readonly commonName: string;
  /** The subject countryName (C), an ISO 3166-1 alpha-2 code, before the CN. */
  readonly country?: string;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  /** An http(s) URL put in the CRL Distribution Points extension. */
  readonly crlDistributionPoint?: string;
  readonly subjectAltNames?: readonly SubjectAltName[];
  /** Replaces the default Key Usage; tests use it to build non-conforming certificates. */
  readonly keyUsage?: x509.KeyUsageFlags;
  /** Replaces the default Basic Constraints; `null` leaves the extension out. */
  readonly basicConstraints?: { readonly ca: boolean; readonly pathLength?: number } | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const COUNTRY = /^[A-Z]{2}$/;

const distinguishedName = (options: CertificateOptions): string => {
  const cn = `CN=${options.commonName.replace(/([,+"\\<>;=])/g, '\\$1')}`;
  if (options.country === undefined) return cn;
  if (!COUNTRY.test(options.country)) throw new Error(`country ${JSON.stringify(options.country)} is not an ISO 3166-1 alpha-2 code (two capital letters)`);
  return `C=${options.country}, ${cn}`;
};

// 16 random bytes with the top bit cleared: a positive INTEGER, unique without a registry.
const randomSerial = (): string => {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
};

const issue = async (
  subjectKeys: { readonly publicKey: CryptoKey; readonly privateKey?: CryptoKey },
  issuer: CertifiedKey | undefined,
  options: CertificateOptions,
  defaults: { readonly keyUsage: x509.KeyUsageFlags; readonly basicConstraints: { ca: boolean; pathLength?: number } },
): Promise<x509.X509Certificate> => {
  const basicConstraints = options.basicConstraints === undefined ? defaults.basicConstraints : options.basicConstraints;
  const extensions: x509.Extension[] = [
    new x509.KeyUsagesExtension(options.keyUsage ?? defaults.keyUsage, true),
    await x509.SubjectKeyIdentifierExtension.create(subjectKeys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(issuer ? issuer.keys.publicKey : subjectKeys.publicKey),
  ];
  if (basicConstraints) extensions.push(new x509.BasicConstraintsExtension(basicConstraints.ca, basicConstraints.pathLength, true));
  if (options.crlDistributionPoint) extensions.push(new x509.CRLDistributionPointsExtension([options.crlDistributionPoint]));
  if (options.subjectAltNames && options.subjectAltNames.length > 0) {
    extensions.push(new x509.SubjectAlternativeNameExtension(options.subjectAltNames.map((n) => ({ type: n.type, value: n.value }))));
  }
  const notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  const signingKey = issuer ? issuer.keys.privateKey : subjectKeys.privateKey;
  if (!signingKey) throw new Error('a self-signed certificate needs its private key');
  return x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: distinguishedName(options),
    issuer: issuer ? issuer.certificate.subject : distinguishedName(options),
    notBefore,
    notAfter: options.notAfter ?? new Date(notBefore.getTime() + 365 * DAY_MS),
    publicKey: subjectKeys.publicKey,
    signingKey,
    signingAlgorithm: ECDSA_SHA256,
    extensions,
  });
};

/**
 * A certification authority: self-signed (a root, usable as a trust anchor) when `issuer` is
 * absent, else an intermediate signed by `issuer`. Key Usage keyCertSign + cRLSign, cA=true.
 */
export const createCertificateAuthority = async (
  options: CertificateOptions & { readonly pathLength?: number },
  issuer?: CertifiedKey,
): Promise<CertifiedKey> => {
  const keys = await generateP256KeyPair();
  const certificate = await issue(keys, issuer, options, {
    keyUsage: x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
    basicConstraints: options.pathLength === undefined ? { ca: true } : { ca: true, pathLength: options.pathLength },
  });
  return { certificate, keys };
};

/** An end-entity signing certificate (digitalSignature, cA=false) for `publicKey`, signed by `issuer`. */
export const certifyPublicKey = (issuer: CertifiedKey, options: CertificateOptions, publicKey: CryptoKey): Promise<x509.X509Certificate> =>
  issue({ publicKey }, issuer, options, { keyUsage: x509.KeyUsageFlags.digitalSignature, basicConstraints: { ca: false } });

/** An end-entity signing certificate (digitalSignature, cA=false) signed by `issuer`. */
export const createLeafCertificate = async (issuer: CertifiedKey, options: CertificateOptions, keys?: CryptoKeyPair): Promise<CertifiedKey> => {
  const subjectKeys = keys ?? (await generateP256KeyPair());
  return { certificate: await certifyPublicKey(issuer, options, subjectKeys.publicKey), keys: subjectKeys };
};

export interface CrlOptions {
  /** Serial numbers (hex, as `X509Certificate.serialNumber`) of revoked certificates. */
  readonly revokedSerialNumbers?: readonly string[];
  readonly thisUpdate?: Date;
  /** Default one day after thisUpdate. */
  readonly nextUpdate?: Date;
}

/** A CRL signed by `issuer` (a CA with cRLSign). */
export const createCrl = async (issuer: CertifiedKey, options: CrlOptions = {}): Promise<x509.X509Crl> => {
  const thisUpdate = options.thisUpdate ?? new Date(Date.now() - 60_000);
  return x509.X509CrlGenerator.create({
    issuer: issuer.certificate.subject,
    thisUpdate,
    nextUpdate: options.nextUpdate ?? new Date(thisUpdate.getTime() + DAY_MS),
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: ECDSA_SHA256,
    entries: (options.revokedSerialNumbers ?? []).map((serialNumber) => ({ serialNumber, revocationDate: thisUpdate })),
  });
};

// --- encodings

/** PEM text of one or more certificates, in the given order. */
export const certificatesToPem = (certificates: readonly x509.X509Certificate[]): string =>
  certificates.map((c) => c.toString('pem')).join('\n') + '\n';

/** Every CERTIFICATE block of a PEM text, in order. Throws when there is none. */
export const certificatesFromPem = (pem: string): x509.X509Certificate[] => {
  const blocks = x509.PemConverter.decodeWithHeaders(pem).filter((b) => b.type === 'CERTIFICATE');
  if (blocks.length === 0) throw new Error('no CERTIFICATE block in the PEM text');
  return blocks.map((b) => new x509.X509Certificate(b.rawData));
};

export const privateKeyToPem = async (key: CryptoKey): Promise<string> =>
  x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY') + '\n';

/** A PKCS#8 P-256 private key, importable for ES256 signing. */
export const privateKeyFromPem = async (pem: string): Promise<CryptoKey> => {
  const block = x509.PemConverter.decodeWithHeaders(pem).find((b) => b.type === 'PRIVATE KEY');
  if (!block) throw new Error('no PRIVATE KEY (PKCS#8) block in the PEM text');
  return webcrypto.subtle.importKey('pkcs8', block.rawData, EC_P256, true, ['sign']);
};

/** The `x5c` header value: base64 (not base64url) DER, leaf first. */
export const x5cOf = (chain: readonly x509.X509Certificate[]): string[] =>
  chain.map((c) => Buffer.from(c.rawData).toString('base64'));

/** OpenID4VP `x509_hash` client identifier: base64url SHA-256 of the certificate's DER. */
export const x509HashClientId = (certificate: x509.X509Certificate): string =>
  `x509_hash:${createHash('sha256').update(Buffer.from(certificate.rawData)).digest('base64url')}`;

// --- signing identities

/** A signer (src/crypto/signer.ts) and the chain certifying its key. */
export interface SigningIdentity {
  /** Signs inside the process (a key file) or inside a PKCS#11 token. */
  readonly signer: EcSigner;
  readonly publicJwk: JWK;
  /** Leaf first, without the trust anchor. */
  readonly chain: readonly x509.X509Certificate[];
  readonly x5c: readonly string[];
}

/** The certificate's leaf does not hold the signer's key. */
export class CertificateKeyMismatch extends Error {
  override readonly name = 'CertificateKeyMismatch';
}

/**
 * Build the identity from a chain (leaf first) and a signer of the leaf's key. A self-signed last
 * certificate is dropped: the verifier holds its anchor, so x5c must not carry it.
 * Throws when the signer's key is not the leaf's.
 */
export const certifiedSigner = async (chain: readonly x509.X509Certificate[], signer: EcSigner): Promise<SigningIdentity> => {
  const [leaf] = chain;
  if (!leaf) throw new Error('empty certificate chain');
  const last = chain[chain.length - 1];
  const withoutAnchor = chain.length > 1 && last && (await last.isSelfSigned()) ? chain.slice(0, -1) : chain;
  const publicJwk = await exportJWK(await leaf.publicKey.export(EC_P256, ['verify']));
  if (publicJwk.kty !== 'EC' || publicJwk.crv !== 'P-256') throw new Error('the certificate does not hold a P-256 key');
  if (signer.publicJwk.x !== publicJwk.x || signer.publicJwk.y !== publicJwk.y) throw new CertificateKeyMismatch('the private key does not match the certificate');
  return { signer, publicJwk: { kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y }, chain: withoutAnchor, x5c: x5cOf(withoutAnchor) };
};

/** The identity of a chain (leaf first) and the leaf's private key held in memory; see certifiedSigner. */
export const signingIdentity = async (chain: readonly x509.X509Certificate[], privateKey: CryptoKey): Promise<SigningIdentity> => {
  const privateJwk = await exportJWK(privateKey);
  if (privateJwk.kty !== 'EC' || privateJwk.crv !== 'P-256') throw new Error('the private key is not a P-256 key');
  // Re-import without extractability: the running service never needs to export it again.
  return certifiedSigner(chain, keySigner(await webcrypto.subtle.importKey('jwk', privateJwk, EC_P256, false, ['sign'])));
};

export interface SigningIdentitySource {
  /** Used in messages and as the development file names, e.g. `access` or `issuer`. */
  readonly name: string;
  /** Environment variable names, for messages. */
  readonly certificateVariable: string;
  readonly keyVariable: string;
  /** PEM chain (leaf first) and PKCS#8 PEM key; both set or both unset. */
  readonly certificateFile: string | undefined;
  readonly keyFile: string | undefined;
  /** Where a development chain is generated and kept when the files are not given. */
  readonly dataDir: string;
  /** Of the generated development leaf. */
  readonly commonName: string;
  /** Of the generated development leaf; a kept leaf without all of them is replaced. */
  readonly subjectAltNames?: readonly SubjectAltName[];
  /** Told when a kept development identity is replaced. */
  readonly log?: Logger;
}

const DEV_CERTIFICATE = 'certificate.pem';
const DEV_KEY = 'key.pem';
const DEV_CA = 'ca.pem';
const DEV_CA_KEY = 'ca-key.pem';

const isErrno = (err: unknown, ...codes: string[]): boolean => codes.includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * The configured identity, or else a development chain (self-made CA + leaf) generated once into
 * `DATA_DIR/<name>-identity/` and reused on every start. The directory is filled under a temporary
 * name and renamed into place, so of two processes starting at once both end up with the same one.
 *
 * A kept development leaf that lacks one of `subjectAltNames` (made by an older version, or for
 * another PUBLIC_URL) would sign what wallets reject, so it is set aside as
 * `<name>-identity.replaced-<serial>/` (never deleted: a verifier may trust its CA) and a new chain
 * made in its place.
 */
export const loadSigningIdentity = async (source: SigningIdentitySource): Promise<SigningIdentity> => {
  if ((source.certificateFile === undefined) !== (source.keyFile === undefined)) {
    throw new Error(`${source.certificateVariable} and ${source.keyVariable}: set both or neither`);
  }
  if (source.certificateFile !== undefined && source.keyFile !== undefined) {
    return readIdentity(source.certificateFile, source.keyFile);
  }
  const dir = join(source.dataDir, `${source.name}-identity`);
  const kept = await readDevelopmentIdentity(dir);
  if (kept !== undefined) {
    const missing = missingNames(kept, source);
    if (missing.length === 0) return kept;
    const setAside = await setAsideDevelopmentIdentity(dir, kept);
    source.log?.warn('development signing identity replaced: its certificate lacks subject alternative names the configuration needs', {
      identity: source.name,
      missing: missing.map(describeSubjectAltName),
      setAside,
    });
  }
  await generateDevelopmentIdentity(dir, source);
  const identity = await readIdentity(join(dir, DEV_CERTIFICATE), join(dir, DEV_KEY));
  const missing = missingNames(identity, source);
  if (missing.length > 0) {
    // Only another process, configured otherwise, can have put this one here since.
    throw new Error(
      `${dir} holds a development certificate without ${missing.map(describeSubjectAltName).join(', ')}: ` +
        'processes sharing DATA_DIR must share PUBLIC_URL',
    );
  }
  return identity;
};

const missingNames = (identity: SigningIdentity, source: SigningIdentitySource): SubjectAltName[] => {
  const present = identity.chain[0] ? subjectAltNamesOf(identity.chain[0]) : [];
  return (source.subjectAltNames ?? []).filter((wanted) => !present.some((n) => sameName(n, wanted)));
};

const readDevelopmentIdentity = async (dir: string): Promise<SigningIdentity | undefined> => {
  try {
    return await readIdentity(join(dir, DEV_CERTIFICATE), join(dir, DEV_KEY));
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
};

/**
 * Moves `dir` to a name derived from the kept leaf's serial number. Of processes replacing the same
 * leaf at once, one moves it; the others find it gone (ENOENT) or the name taken (ENOTEMPTY,
 * EEXIST: `dir` is then already a new identity, which stays where it is).
 */
const setAsideDevelopmentIdentity = async (dir: string, kept: SigningIdentity): Promise<string> => {
  const target = `${dir}.replaced-${kept.chain[0]?.serialNumber ?? 'unknown'}`;
  try {
    await rename(dir, target);
  } catch (err) {
    if (!isErrno(err, 'ENOENT', 'ENOTEMPTY', 'EEXIST')) throw err;
  }
  return target;
};

const generateDevelopmentIdentity = async (dir: string, source: SigningIdentitySource): Promise<void> => {
  await mkdir(source.dataDir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(join(source.dataDir, `.${source.name}-identity-`));
  try {
    await writeDevelopmentChain(staging, source);
    await rename(staging, dir);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    if (!isErrno(err, 'ENOTEMPTY', 'EEXIST')) throw err;
  }
};

const readIdentity = async (certificateFile: string, keyFile: string): Promise<SigningIdentity> => {
  const [chainPem, keyPem] = await Promise.all([readFile(certificateFile, 'utf8'), readFile(keyFile, 'utf8')]);
  return signingIdentity(certificatesFromPem(chainPem), await privateKeyFromPem(keyPem));
};

export interface GeneratedChain {
  readonly ca: CertifiedKey;
  readonly leaf: CertifiedKey;
}

/**
 * The country (C) of generated chains unless told otherwise: ISO/IEC 18013-5 (Annex B) wants one in
 * the IACA and document signer names, and mdoc verifiers refuse a document signer without it.
 */
export const DEFAULT_CERTIFICATE_COUNTRY = 'DE';

/**
 * A CA valid ten years and a leaf valid one year, both naming `country` (C), for development and
 * for `ops certificates generate`.
 */
export const generateChain = async (
  commonName: string,
  subjectAltNames: readonly SubjectAltName[] = [],
  country: string = DEFAULT_CERTIFICATE_COUNTRY,
): Promise<GeneratedChain> => {
  const { ca, leafOptions } = await developmentCa(commonName, subjectAltNames, country);
  return { ca, leaf: await createLeafCertificate(ca, leafOptions) };
};

/** The same chain for a key held elsewhere (a PKCS#11 token): leaf (certifying `publicKey`) first, then the CA. */
export const generateChainForPublicKey = async (
  commonName: string,
  subjectAltNames: readonly SubjectAltName[],
  publicKey: CryptoKey,
  country: string = DEFAULT_CERTIFICATE_COUNTRY,
): Promise<x509.X509Certificate[]> => {
  const { ca, leafOptions } = await developmentCa(commonName, subjectAltNames, country);
  return [await certifyPublicKey(ca, leafOptions, publicKey), ca.certificate];
};

const developmentCa = async (commonName: string, subjectAltNames: readonly SubjectAltName[], country: string) => {
  const notBefore = new Date(Date.now() - 60_000);
  const ca = await createCertificateAuthority({ commonName: `${commonName} CA`, country, notBefore, notAfter: new Date(notBefore.getTime() + 3650 * DAY_MS), pathLength: 0 });
  return { ca, leafOptions: { commonName, country, notBefore, subjectAltNames } satisfies CertificateOptions };
};

/**
 * Writes `certificate.pem` (the leaf), `key.pem` (its PKCS#8 key), `ca.pem` and, with
 * `includeCaKey`, `ca-key.pem` into `dir`, each mode 0600 and never over an existing file.
 */
export const writeChainFiles = async (dir: string, chain: GeneratedChain, options: { readonly includeCaKey?: boolean } = {}): Promise<void> => {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (options.includeCaKey) await writeFile(join(dir, DEV_CA_KEY), await privateKeyToPem(chain.ca.keys.privateKey), { flag: 'wx', mode: 0o600 });
  await writeFile(join(dir, DEV_KEY), await privateKeyToPem(chain.leaf.keys.privateKey), { flag: 'wx', mode: 0o600 });
  await writeFile(join(dir, DEV_CERTIFICATE), certificatesToPem([chain.leaf.certificate]), { flag: 'wx', mode: 0o600 });
  await writeFile(join(dir, DEV_CA), certificatesToPem([chain.ca.certificate]), { flag: 'wx', mode: 0o600 });
};

const writeDevelopmentChain = async (dir: string, source: SigningIdentitySource): Promise<void> =>
  writeChainFiles(dir, await generateChain(source.commonName, source.subjectAltNames));
