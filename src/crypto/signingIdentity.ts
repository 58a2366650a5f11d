// The connector's two signing identities (the Relying Party's access certificate and the Issuer
// Signing Certificate): a chain and the signer of its leaf's key, loaded from files or, in
// development, generated once in DATA_DIR; development chains for the ops tool; and the deployment's
// development CA, which certifies tenants' own keys that ask for a development chain.
import { webcrypto } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportJWK, type JWK } from 'jose';
import type { Logger } from '../log.js';
import { keySigner, type EcSigner } from './signer.js';
import { x509 } from './x509.js';
import { type CertificateOptions, type CertifiedKey, type CryptoKey, type SubjectAltName, certificatesFromPem, certificatesToPem, certifyPublicKey, createCertificateAuthority, createLeafCertificate, describeSubjectAltName, privateKeyFromPem, privateKeyToPem, subjectAltNamesOf, x5cOf, DAY_MS, EC_P256, sameName } from './certificates.js';

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

const generateDevelopmentIdentity = (dir: string, source: SigningIdentitySource): Promise<void> =>
  writeOnce(source.dataDir, dir, `.${source.name}-identity-`, (staging) => writeDevelopmentChain(staging, source));

/**
 * Fills `dir` (in `dataDir`) by `write` under a temporary name and renames it into place, so of two
 * processes doing it at once both end up with the same one.
 */
const writeOnce = async (dataDir: string, dir: string, prefix: string, write: (staging: string) => Promise<void>): Promise<void> => {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(join(dataDir, prefix));
  try {
    await write(staging);
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

const DEVELOPMENT_CA_DIR = 'development-ca';

/**
 * The deployment's development CA, which certifies tenants' keys at once when they ask for a
 * development chain (ALLOW_DEVELOPMENT_CHAINS): made once into `DATA_DIR/development-ca/` (`ca.pem`,
 * `ca-key.pem`, mode 0600) and reused on every start, so verifiers can trust its certificate.
 */
export const loadDevelopmentCa = async (dataDir: string, commonName: string): Promise<CertifiedKey> => {
  const dir = join(dataDir, DEVELOPMENT_CA_DIR);
  const read = async (): Promise<CertifiedKey> => {
    const [certificatePem, keyPem] = await Promise.all([readFile(join(dir, DEV_CA), 'utf8'), readFile(join(dir, DEV_CA_KEY), 'utf8')]);
    const [certificate] = certificatesFromPem(certificatePem);
    if (!certificate) throw new Error(`${dir}: no CA certificate`);
    return { certificate, keys: { privateKey: await privateKeyFromPem(keyPem), publicKey: await certificate.publicKey.export(EC_P256, ['verify']) } };
  };
  try {
    return await read();
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  await writeOnce(dataDir, dir, '.development-ca-', async (staging) => {
    const { ca } = await developmentCa(commonName, [], DEFAULT_CERTIFICATE_COUNTRY);
    await writeFile(join(staging, DEV_CA_KEY), await privateKeyToPem(ca.keys.privateKey), { flag: 'wx', mode: 0o600 });
    await writeFile(join(staging, DEV_CA), certificatesToPem([ca.certificate]), { flag: 'wx', mode: 0o600 });
  });
  return read();
};

/** A development leaf (valid one year) for `publicKey`, certified by `ca`: leaf first, then the CA. */
export const certifyWithDevelopmentCa = async (
  ca: CertifiedKey,
  commonName: string,
  subjectAltNames: readonly SubjectAltName[],
  publicKey: CryptoKey,
): Promise<x509.X509Certificate[]> => [
  await certifyPublicKey(ca, { commonName, country: DEFAULT_CERTIFICATE_COUNTRY, notBefore: new Date(Date.now() - 60_000), subjectAltNames }, publicKey),
  ca.certificate,
];

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
