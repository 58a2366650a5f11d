// A TEST SD-JWT VC issuer and holder keys, for verifier tests; the wallet (wallet/) presents what
// it issues. It builds its SD-JWT itself (jose for JWS, node:crypto for digests) and
// shares no code with src/verification, so a bug there cannot hide behind the same bug here.
// Certificates come from src/crypto/certificates.
//
//   const issuer = await createTestIssuer();                        // CA -> leaf, x5c = [leaf]
//   const holder = await createHolder();                            // P-256 wallet key
//   const credential = await issuer.issue({
//     vct: 'urn:eudi:pid:1',
//     claims: { given_name: sd('Erika'), address: sd({ street: sd('Heidestr. 17'), country: 'DE' }),
//               nationalities: [sd('DE'), 'FR'] },                  // sd() marks a property or array element disclosable
//     holder,                                                       // cnf.jwk
//   });
//   const vp = await present(credential, {                         // the wallet's, wallet/sdJwt.ts
//     disclose: ['given_name', 'address', 'address.street'],       // disclosure names: dotted paths, [i] for array elements
//     keyBinding: { holder, aud: clientId, nonce, transactionData: [encoded] },
//   });
//
// Tampering options: IssueOptions.typ / signingKey / x5c / nbf / exp; on the wallet's side
// KeyBindingOptions and PresentOptions.extraDisclosures (disclosures the credential never
// committed to, e.g. forgedDisclosure).
import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, SignJWT, type JWK } from 'jose';
import { createCertificateAuthority, createLeafCertificate, generateP256KeyPair, x5cOf, type CertificateOptions, type CertifiedKey, type CryptoKey, type CryptoKeyPair } from '../../src/crypto/certificates.js';
import type { HeldCredential } from '../../wallet/sdJwt.js';

const SD_MARK = Symbol('selectively disclosable');

/** A value the issuer hides behind a digest: a property value or an array element. */
export interface SelectivelyDisclosable {
  readonly [SD_MARK]: true;
  readonly value: unknown;
}

export const sd = (value: unknown): SelectivelyDisclosable => ({ [SD_MARK]: true, value });

const isSd = (value: unknown): value is SelectivelyDisclosable => typeof value === 'object' && value !== null && SD_MARK in value;

const b64url = (bytes: Buffer | Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (text: string): string => b64url(createHash('sha256').update(text).digest());

/** The digest an issuer puts in `_sd` for a disclosure. */
export const disclosureDigest = (encoded: string): string => sha256(encoded);

/** base64url of the JSON of a transaction data object, as the request carries it. */
export const encodeTransactionData = (item: Record<string, unknown>): string => b64url(Buffer.from(JSON.stringify(item)));

export interface Holder {
  readonly keys: CryptoKeyPair;
  readonly publicJwk: JWK;
}

export const createHolder = async (): Promise<Holder> => {
  const keys = await generateP256KeyPair();
  const { kty, crv, x, y } = await exportJWK(keys.publicKey);
  return { keys, publicJwk: { kty, crv, x, y } };
};

export interface IssueOptions {
  readonly vct: string;
  /** Claims; `sd(...)` marks what is selectively disclosable, anywhere in the tree. */
  readonly claims: Record<string, unknown>;
  /** Puts `cnf.jwk` in the credential. */
  readonly holder?: Holder;
  readonly iss?: string;
  /** Defaults: an hour ago and a year ahead. `null` leaves the claim out. */
  readonly nbf?: Date | null;
  readonly exp?: Date | null;
  /** Header `typ`; default `dc+sd-jwt`. */
  readonly typ?: string;
  /** Sign with another key than the leaf's (a forged credential). */
  readonly signingKey?: CryptoKey;
  /** Replace the `x5c` header. */
  readonly x5c?: readonly string[];
}

/** The issuer-signed JWT and every disclosure, by name: the wallet's form of a credential it holds. */
export type IssuedCredential = HeldCredential;

// Own properties even for `__proto__`, which plain assignment would turn into a prototype change.
const setOwn = (object: Record<string, unknown>, name: string, value: unknown): void => {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
};

const disclosure = (parts: readonly unknown[]): string => b64url(Buffer.from(JSON.stringify([b64url(randomBytes(16)), ...parts])));

/** Replace every `sd(...)` by a digest, collecting the disclosures by path name. */
const conceal = (value: unknown, name: string, out: Record<string, string>): unknown => {
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const itemName = `${name}[${index}]`;
      if (!isSd(item)) return conceal(item, itemName, out);
      const encoded = disclosure([conceal(item.value, itemName, out)]);
      setOwn(out, itemName, encoded);
      return { '...': sha256(encoded) };
    });
  }
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  const digests: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const childName = name === '' ? key : `${name}.${key}`;
    if (!isSd(child)) {
      setOwn(result, key, conceal(child, childName, out));
      continue;
    }
    const encoded = disclosure([key, conceal(child.value, childName, out)]);
    setOwn(out, childName, encoded);
    digests.push(sha256(encoded));
  }
  if (digests.length > 0) result['_sd'] = digests.sort();
  return result;
};

export interface TestIssuer {
  readonly ca: CertifiedKey;
  readonly intermediate: CertifiedKey | undefined;
  readonly leaf: CertifiedKey;
  /** Leaf first, intermediate if any; never the CA. */
  readonly x5c: readonly string[];
  issue(options: IssueOptions): Promise<IssuedCredential>;
}

export interface TestIssuerOptions {
  /** Adds an intermediate CA between the root and the leaf. */
  readonly intermediate?: boolean;
  /** CRL Distribution Point URL of the leaf (the intermediate's goes in `intermediateCa`). */
  readonly crlUrl?: string;
  /** Overrides for the leaf, the intermediate and the CA (validity, Key Usage, Basic Constraints). */
  readonly leaf?: Partial<CertificateOptions>;
  readonly intermediateCa?: Partial<CertificateOptions>;
  readonly rootCa?: Partial<CertificateOptions>;
  /** Use an existing CA instead of making one. */
  readonly ca?: CertifiedKey;
}

export const createTestIssuer = async (options: TestIssuerOptions = {}): Promise<TestIssuer> => {
  const crl = options.crlUrl ? { crlDistributionPoint: options.crlUrl } : {};
  const ca = options.ca ?? (await createCertificateAuthority({ commonName: 'Test Issuer Root CA', ...options.rootCa }));
  const intermediate = options.intermediate
    ? await createCertificateAuthority({ commonName: 'Test Issuer Intermediate CA', ...options.intermediateCa }, ca)
    : undefined;
  const leaf = await createLeafCertificate(intermediate ?? ca, { commonName: 'Test Issuer', ...crl, ...options.leaf });
  const x5c = x5cOf(intermediate ? [leaf.certificate, intermediate.certificate] : [leaf.certificate]);
  return {
    ca,
    intermediate,
    leaf,
    x5c,
    async issue(issue) {
      const disclosures: Record<string, string> = {};
      const concealed = conceal(issue.claims, '', disclosures) as Record<string, unknown>;
      const now = Date.now();
      const nbf = issue.nbf === undefined ? new Date(now - 3_600_000) : issue.nbf;
      const exp = issue.exp === undefined ? new Date(now + 365 * 86_400_000) : issue.exp;
      const payload: Record<string, unknown> = {
        iss: issue.iss ?? 'https://issuer.example',
        iat: Math.floor(now / 1000),
        ...(nbf ? { nbf: Math.floor(nbf.getTime() / 1000) } : {}),
        ...(exp ? { exp: Math.floor(exp.getTime() / 1000) } : {}),
        vct: issue.vct,
        ...(issue.holder ? { cnf: { jwk: issue.holder.publicJwk } } : {}),
        _sd_alg: 'sha-256',
        ...concealed,
      };
      const jwt = await new SignJWT(payload)
        .setProtectedHeader({ alg: 'ES256', typ: issue.typ ?? 'dc+sd-jwt', x5c: [...(issue.x5c ?? x5c)] })
        .sign(issue.signingKey ?? leaf.keys.privateKey);
      return { jwt, disclosures };
    },
  };
};

/** A disclosure the issuer never signed, for "extra disclosure" tests. */
export const forgedDisclosure = (name: string, value: unknown): string => disclosure([name, value]);
