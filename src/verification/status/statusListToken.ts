// The Status List Token in JWT format (draft-ietf-oauth-status-list, section 5.1): header
// `typ: statuslist+jwt`; claims `sub` (the list's URI, equal to the Referenced Token's
// `status.status_list.uri`), `iat`, `exp`, `ttl` and `status_list: {bits, lst}`. This is the
// verifier's side, reading a fetched one back; the issuer signs its own in
// src/issuance/status/statusListToken.ts.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { x509 } from '../../crypto/x509.js';
import { parseX5c } from '../../trust/x509Chain.js';
import { isRecord } from '../../../streams/kernel.js';
import { numericDate, parseJson, typIs } from '../json.js';
import { decodeLst, STATUS_LIST_TYP, type StatusList } from '../../statusList/statusList.js';

export interface VerifiedStatusListToken {
  /** The signer's `x5c`, leaf first: whose trust the caller still has to judge. */
  readonly chain: readonly x509.X509Certificate[];
  readonly list: StatusList;
  readonly exp: Date | undefined;
  /** Seconds. */
  readonly ttl: number | undefined;
}

export interface TokenExpectations {
  /** The Referenced Token's `status.status_list.uri`: the token's `sub` must equal it. */
  readonly uri: string;
  readonly now: Date;
  /** Bound of the decompressed list. */
  readonly maxBytes: number;
}

/**
 * Verifies a fetched Status List Token as the draft's validation rules ask: `typ`, an ES256
 * signature by its `x5c` leaf, `sub` equal to the credential's `uri`, `iat` present, `exp` not
 * passed (and `nbf`, if any, reached), then the list itself. Left is why not (completing
 * "status list <uri> ...").
 */
export const verifyStatusListToken = async (jwt: string, expected: TokenExpectations): Promise<Either<string, VerifiedStatusListToken>> => {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    return left('is not a JWS');
  }
  if (!typIs(header.typ, STATUS_LIST_TYP)) return left(`typ is ${JSON.stringify(header.typ)}, expected "${STATUS_LIST_TYP}"`);
  if (header.alg !== 'ES256') return left(`alg is ${JSON.stringify(header.alg)}, expected "ES256"`);
  const chain = parseX5c(header.x5c);
  if (isLeft(chain)) return left(`is not verifiable: ${chain.left}`);
  let bytes: Uint8Array;
  try {
    const key = await chain.right[0]!.publicKey.export({ name: 'ECDSA', namedCurve: 'P-256' }, ['verify']);
    bytes = (await compactVerify(jwt, key, { algorithms: ['ES256'] })).payload;
  } catch {
    return left('signature does not verify with its x5c leaf certificate key');
  }
  const payload = parseJson(bytes);
  if (!isRecord(payload)) return left('payload is not a JSON object');
  if (payload['sub'] !== expected.uri) return left('sub is not the uri the credential names');
  const iat = numericDate(payload, 'iat');
  if (isLeft(iat)) return iat;
  const exp = numericDate(payload, 'exp');
  if (isLeft(exp)) return exp;
  const nbf = numericDate(payload, 'nbf');
  if (isLeft(nbf)) return nbf;
  if (iat.right === undefined) return left('has no iat');
  const { now } = expected;
  if (exp.right !== undefined && now >= exp.right) return left(`expired at ${exp.right.toISOString()}`);
  if (nbf.right !== undefined && now < nbf.right) return left(`is not valid before ${nbf.right.toISOString()}`);
  const ttl = payload['ttl'];
  if (ttl !== undefined && !(typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0)) return left('ttl is not a positive number');
  const statusList = payload['status_list'];
  if (!isRecord(statusList)) return left('has no status_list object');
  const list = decodeLst(statusList['lst'], statusList['bits'], expected.maxBytes);
  if (isLeft(list)) return list;
  return right({ chain: chain.right, list: list.right, exp: exp.right, ttl: ttl as number | undefined });
};
