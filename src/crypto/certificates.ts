// P-256 keys and X.509 certificates: certificate authorities and leaves, CRLs for tests and
// operators, PEM and `x5c` encodings. The signing identities built on them: signingIdentity.ts.
//
// Everything is ES256 (HAIP). Certificates carry SubjectKeyIdentifier/AuthorityKeyIdentifier so a
// verifier can match issuers by key, not only by name.
import { createHash, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { x509 } from './x509.js';

export type CryptoKey = webcrypto.CryptoKey;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;

export const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
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

export const sameName = (a: SubjectAltName, b: SubjectAltName): boolean =>
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

export const DAY_MS = 24 * 60 * 60 * 1000;

const COUNTRY = /^[A-Z]{2}$/;

/** `C=<country>, CN=<commonName>` (or the CN alone), escaped. */
export const distinguishedName = (options: Pick<CertificateOptions, 'commonName' | 'country'>): string => {
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
