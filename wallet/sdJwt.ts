// The holder's side of SD-JWT VC: an issued credential taken apart into its disclosures, each
// named by the claim it discloses (dotted paths for properties, `[i]` for array elements, the
// names the presentation half chooses by), checked before it is kept; and a presentation of it
// with the chosen disclosures and a key binding JWT. Tests bend the KB-JWT through explicit
// options only (KeyBindingOptions), so each negative case says what it breaks.
import { createHash } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, SignJWT, type CryptoKey, type JWK } from 'jose';
import { thumbprint } from './keys.js';
import { x5cLeaf } from './x5c.js';

/** A credential as the wallet holds it: the issuer-signed JWT and every disclosure, by name. */
export interface HeldCredential {
  readonly jwt: string;
  readonly disclosures: Readonly<Record<string, string>>;
}

/** The key a credential is bound to (its `cnf.jwk`), as a key binding is signed with it. */
export interface Holder {
  readonly keys: { readonly privateKey: CryptoKey };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64url');

/** base64url(SHA-256(the exact base64url string sent)): what a KB-JWT's transaction_data_hashes hold. */
export const transactionDataHash = (encoded: string): string => sha256(encoded);

// Own properties even for `__proto__`, which plain assignment would turn into a prototype change.
const setOwn = (object: Record<string, unknown>, name: string, value: unknown): void => {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const decodeDisclosure = (encoded: string): unknown[] => {
  const parts: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (!Array.isArray(parts)) throw new Error('a disclosure is not an array');
  return parts;
};

interface Unfolded {
  readonly names: Record<string, string>;
  readonly claims: Record<string, unknown>;
}

/**
 * Follows every digest of `payload` to its disclosure: the disclosures by name, and the claims
 * with everything disclosed. A disclosure the payload does not commit to, or commits to twice,
 * makes the credential unusable.
 */
const unfold = (payload: Record<string, unknown>, encoded: readonly string[]): Unfolded => {
  if (payload['_sd_alg'] !== undefined && payload['_sd_alg'] !== 'sha-256') throw new Error(`unsupported _sd_alg ${String(payload['_sd_alg'])}`);
  const byDigest = new Map(encoded.map((e) => [sha256(e), e]));
  const used = new Set<string>();
  const names: Record<string, string> = {};
  // A digest without a disclosure is a decoy or a claim the holder was not given: skipped.
  const take = (digest: unknown): { encoded: string; parts: unknown[] } | undefined => {
    const encoded = typeof digest === 'string' ? byDigest.get(digest) : undefined;
    if (encoded === undefined) return undefined;
    if (used.has(encoded)) throw new Error('a disclosure is referenced twice');
    used.add(encoded);
    return { encoded, parts: decodeDisclosure(encoded) };
  };
  const visit = (value: unknown, name: string): unknown => {
    if (Array.isArray(value)) {
      return value.flatMap((item, index) => {
        const itemName = `${name}[${index}]`;
        if (!isObject(item) || Object.keys(item).length !== 1 || !('...' in item)) return [visit(item, itemName)];
        const found = take(item['...']);
        if (found === undefined) return [];
        if (found.parts.length !== 2) throw new Error('an array element disclosure does not have two parts');
        setOwn(names, itemName, found.encoded);
        return [visit(found.parts[1], itemName)];
      });
    }
    if (!isObject(value)) return value;
    const result: Record<string, unknown> = {};
    const childName = (key: string) => (name === '' ? key : `${name}.${key}`);
    for (const [key, child] of Object.entries(value)) {
      if (key !== '_sd' && key !== '_sd_alg') setOwn(result, key, visit(child, childName(key)));
    }
    const digests = value['_sd'] ?? [];
    if (!Array.isArray(digests)) throw new Error('_sd is not an array');
    for (const digest of digests) {
      const found = take(digest);
      if (found === undefined) continue;
      const [, key, disclosedValue] = found.parts;
      if (found.parts.length !== 3 || typeof key !== 'string') throw new Error('a property disclosure does not have three parts');
      if (Object.hasOwn(result, key)) throw new Error(`claim ${childName(key)} is disclosed and also plain`);
      setOwn(names, childName(key), found.encoded);
      setOwn(result, key, visit(disclosedValue, childName(key)));
    }
    return result;
  };
  const claims = visit(payload, '') as Record<string, unknown>;
  if (used.size !== encoded.length) throw new Error('a disclosure the credential does not commit to');
  return { names, claims };
};

const split = (sdJwt: string): { jwt: string; encoded: string[] } => {
  const [jwt, ...rest] = sdJwt.split('~');
  if (!jwt || rest.at(-1) !== '') throw new Error('not an SD-JWT (<jwt>~<disclosure>~...~)');
  return { jwt, encoded: rest.slice(0, -1) };
};

/** An SD-JWT VC as issued, in the wallet's form; throws when its disclosures do not fit its payload. */
export const holdCredential = (sdJwt: string): HeldCredential => {
  const { jwt, encoded } = split(sdJwt);
  return { jwt, disclosures: unfold(decodeJwt(jwt), encoded).names };
};

/** The credential's payload with every disclosure it holds applied: what it can show. */
export const claimsOf = (credential: HeldCredential): Record<string, unknown> =>
  unfold(decodeJwt(credential.jwt), Object.values(credential.disclosures)).claims;

/**
 * Checks a credential the wallet has just been issued before it keeps it: signed (ES256) by the
 * leaf of its `x5c`, of type `dc+sd-jwt`, from the issuer the wallet asked, bound to the key the
 * wallet proved, every disclosure committed to. It trusts any issuer chain: it is a simulator.
 */
export const checkIssuedCredential = async (sdJwt: string, expected: { readonly issuer: string; readonly holder: JWK }): Promise<HeldCredential> => {
  const { jwt } = split(sdJwt);
  const header = decodeProtectedHeader(jwt) as Record<string, unknown>;
  if (header['typ'] !== 'dc+sd-jwt' || header['alg'] !== 'ES256') throw new Error('the credential is not a dc+sd-jwt signed with ES256');
  await compactVerify(jwt, x5cLeaf(header).publicKey, { algorithms: ['ES256'] }).catch(() => {
    throw new Error('the credential signature does not verify with its x5c leaf');
  });
  const payload = decodeJwt(jwt);
  if (payload.iss !== expected.issuer) throw new Error(`the credential is from ${String(payload.iss)}, not ${expected.issuer}`);
  const cnf = (payload['cnf'] as { jwk?: JWK } | undefined)?.jwk;
  if (!cnf || (await thumbprint(cnf)) !== (await thumbprint(expected.holder))) throw new Error('the credential is not bound to the wallet key');
  return holdCredential(sdJwt);
};

export interface KeyBindingOptions {
  readonly holder: Holder;
  readonly aud: string;
  readonly nonce: string;
  /** Default now. */
  readonly iat?: Date;
  /** The exact base64url strings whose hashes go in transaction_data_hashes. */
  readonly transactionData?: readonly string[];
  /** Replaces the computed transaction_data_hashes. */
  readonly transactionDataHashes?: readonly string[];
  /** Replaces the computed sd_hash. */
  readonly sdHash?: string;
  /** Default `kb+jwt`. */
  readonly typ?: string;
  /** Sign with another key than the holder's. */
  readonly signingKey?: CryptoKey;
}

export interface PresentOptions {
  /** Names of the disclosures to include (keys of HeldCredential.disclosures). */
  readonly disclose: readonly string[];
  /** Encoded disclosures to append after the chosen ones. */
  readonly extraDisclosures?: readonly string[];
  readonly keyBinding?: KeyBindingOptions;
}

/** The holder's presentation: `<jwt>~<disclosure>~...~[<KB-JWT>]`. */
export const present = async (credential: HeldCredential, options: PresentOptions): Promise<string> => {
  const chosen = options.disclose.map((name) => {
    const encoded = Object.hasOwn(credential.disclosures, name) ? credential.disclosures[name] : undefined;
    if (encoded === undefined) throw new Error(`the credential has no disclosure named ${name}`);
    return encoded;
  });
  const sdJwt = [credential.jwt, ...chosen, ...(options.extraDisclosures ?? [])].join('~') + '~';
  const kb = options.keyBinding;
  if (!kb) return sdJwt;
  const hashes = kb.transactionDataHashes ?? kb.transactionData?.map(transactionDataHash);
  const kbJwt = await new SignJWT({
    aud: kb.aud,
    nonce: kb.nonce,
    iat: Math.floor((kb.iat ?? new Date()).getTime() / 1000),
    sd_hash: kb.sdHash ?? sha256(sdJwt),
    ...(hashes ? { transaction_data_hashes: [...hashes], transaction_data_hashes_alg: 'sha-256' } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: kb.typ ?? 'kb+jwt' })
    .sign(kb.signingKey ?? kb.holder.keys.privateKey);
  return sdJwt + kbJwt;
};
