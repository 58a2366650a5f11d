// The check of a tenant's registration certificate (ETSI TS 119 475, the Wallet-Relying Party
// Registration Certificate in JWT form) before `PUT /verifier` records it: header `typ`
// `rc-wrp+jwt` and `x5c` (the signer's chain, leaf first); the signature by the leaf's key; `iat`
// present and not ahead, `exp` (if any) not passed, the leaf certificate valid now; and
// `credentials`, what the relying party may ask for, as DCQL credential queries: `format`,
// `meta` (`vct_values`, `doctype_value`), `claims` by `path`. The certificate is the tenant's own
// statement: its chain is checked against registrars' anchors only where the operator names them
// (REGISTRATION_CERTIFICATE_TRUST_ANCHORS, src/resources/tenantVerifier.ts; docs/tenant-settings.md).
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { compactVerify, decodeProtectedHeader, importX509, type ProtectedHeaderParameters } from 'jose';
import { isRecord, type Json } from '../../streams/kernel.js';
import { certificateFromBase64, type x509 } from '../crypto/x509.js';
import type { RegisteredCredential } from './ports.js';

export const REGISTRATION_CERTIFICATE_TYP = 'rc-wrp+jwt';

/** The JWS algorithms TS 119 475 allows (by TS 119 182-1) that this check verifies. */
const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];

/** Clocks of the tenant's registrar and ours may differ this much. */
const SKEW_SECONDS = 60;

/** Why a registration certificate is refused: the rule, and what about it. */
export interface RegistrationRefused {
  readonly rule: 'malformed' | 'typ' | 'alg' | 'x5c' | 'signature' | 'iat' | 'expired' | 'certificate_validity' | 'credentials';
  readonly detail: string;
}

export interface CheckedRegistration {
  readonly credentials: readonly RegisteredCredential[];
  /** The signer's `x5c`, leaf first, for a check against registrars' anchors. */
  readonly chain: readonly x509.X509Certificate[];
}

const refused = (rule: RegistrationRefused['rule'], detail: string): Either<RegistrationRefused, never> => left({ rule, detail });

type PathElement = string | number | null;
const isPathElement = (e: unknown): e is PathElement => typeof e === 'string' || e === null || (typeof e === 'number' && Number.isInteger(e) && e >= 0);

/** One entry of `credentials`, or why not (at `credentials[i]`). */
const credentialOf = (u: unknown, at: string): Either<string, RegisteredCredential> => {
  if (!isRecord(u)) return left(`${at} is not an object`);
  const { format, meta, claims } = u;
  if (typeof format !== 'string' || format === '') return left(`${at}.format must be a non-empty string`);
  if (!isRecord(meta)) return left(`${at}.meta must be an object (vct_values, doctype_value)`);
  if (claims === undefined) return right({ format, meta: meta as { readonly [member: string]: Json } });
  if (!Array.isArray(claims)) return left(`${at}.claims must be an array`);
  const paths: { readonly path: readonly PathElement[] }[] = [];
  for (const [i, claim] of claims.entries()) {
    const path: unknown = isRecord(claim) ? claim['path'] : undefined;
    if (!Array.isArray(path) || path.length === 0 || !path.every(isPathElement)) {
      return left(`${at}.claims[${i}].path must be a non-empty array of strings, non-negative integers and null`);
    }
    paths.push({ path });
  }
  return right({ format, meta: meta as { readonly [member: string]: Json }, claims: paths });
};

/** The payload's `credentials`: a non-empty array of DCQL-shaped entries. */
export const registeredCredentials = (u: unknown): Either<string, RegisteredCredential[]> => {
  if (!Array.isArray(u) || u.length === 0) return left('credentials must be a non-empty array');
  const out: RegisteredCredential[] = [];
  for (const [i, entry] of u.entries()) {
    const credential = credentialOf(entry, `credentials[${i}]`);
    if (isLeft(credential)) return credential;
    out.push(credential.right);
  }
  return right(out);
};

/** Checks `jwt` as a registration certificate at `now`. */
export const checkRegistrationCertificate = async (jwt: string, now: Date): Promise<Either<RegistrationRefused, CheckedRegistration>> => {
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    return refused('malformed', 'not a compact JWS');
  }
  if (header.typ !== REGISTRATION_CERTIFICATE_TYP) return refused('typ', `the header's typ must be ${REGISTRATION_CERTIFICATE_TYP}`);
  const alg = header.alg;
  if (typeof alg !== 'string' || !ALGORITHMS.includes(alg)) return refused('alg', `the header's alg must be one of ${ALGORITHMS.join(', ')}`);
  if (!Array.isArray(header.x5c) || header.x5c.length === 0) return refused('x5c', "the header has no x5c (the signer's certificate chain)");
  const chain: x509.X509Certificate[] = [];
  for (const [i, entry] of header.x5c.entries()) {
    const parsed = certificateFromBase64(entry);
    if (isLeft(parsed)) return refused('x5c', `x5c[${i}] ${parsed.left}`);
    chain.push(parsed.right);
  }
  const leaf = chain[0]!;
  let payload: unknown;
  try {
    const key = await importX509(leaf.toString('pem'), alg);
    payload = JSON.parse(new TextDecoder().decode((await compactVerify(jwt, key, { algorithms: [alg] })).payload));
  } catch {
    return refused('signature', 'the signature does not verify with the key of its x5c leaf certificate');
  }
  if (!isRecord(payload)) return refused('malformed', 'the payload is not a JSON object');
  const seconds = now.getTime() / 1000;
  const { iat, exp } = payload;
  if (typeof iat !== 'number') return refused('iat', 'the payload has no iat');
  if (iat > seconds + SKEW_SECONDS) return refused('iat', 'iat is in the future');
  if (exp !== undefined && typeof exp !== 'number') return refused('expired', 'exp is not a number');
  if (typeof exp === 'number' && exp <= seconds - SKEW_SECONDS) return refused('expired', `the certificate expired at ${new Date(exp * 1000).toISOString()}`);
  if (leaf.notBefore > now || leaf.notAfter < now) {
    return refused('certificate_validity', `the x5c leaf certificate is valid from ${leaf.notBefore.toISOString()} to ${leaf.notAfter.toISOString()}, not now`);
  }
  const credentials = registeredCredentials(payload['credentials']);
  if (isLeft(credentials)) return refused('credentials', credentials.left);
  return right({ credentials: credentials.right, chain });
};
