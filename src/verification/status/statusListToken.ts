// The Status List Token (draft-ietf-oauth-status-list, section 5) in either form, read back by the
// verifier; the issuer signs its own in src/issuance/status/statusListToken.ts.
// - JWT (5.1): header `typ: statuslist+jwt`, `alg` ES256, `x5c`; claims `sub` (the list's URI,
//   equal to the Referenced Token's `status.status_list.uri`), `iat`, `exp`, `ttl` and
//   `status_list: {bits, lst}` (`lst` base64url).
// - CWT (5.2): a COSE_Sign1 with `typ` (16) `application/statuslist+cwt` and `alg` ES256 in the
//   protected header, `x5chain`; the same claims under their CWT keys (`lst` a byte string).
// Both go through the same checks once their signature verified.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { x509 } from '../../crypto/x509.js';
import { decodeCbor, isBytes, isMap } from '../../mdoc/cbor.js';
import { HEADER_TYP, parseCoseSign1, verifyByCertificate, x5chainCertificates } from '../../mdoc/cose.js';
import { parseX5c } from '../../trust/x509Chain.js';
import { isRecord } from '../../../streams/kernel.js';
import { numericDate, parseJson, typIs } from '../json.js';
import { CWT_CLAIM, decodeLst, decompressList, STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_TYP, type StatusList } from '../../statusList/statusList.js';

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
  const statusList = payload['status_list'];
  return checkClaims(payload, chain.right, expected, () =>
    isRecord(statusList) ? decodeLst(statusList['lst'], statusList['bits'], expected.maxBytes) : left('has no status_list object'));
};

/**
 * The same for a CWT (`bytes` as fetched): `typ` and `alg` in the protected header, an ES256
 * signature by its `x5chain` leaf, then the same claims as the JWT's under their CWT keys.
 */
export const verifyStatusListCwt = (bytes: Uint8Array, expected: TokenExpectations): Either<string, VerifiedStatusListToken> => {
  const decoded = decodeCbor(bytes);
  if (isLeft(decoded)) return left(`CWT ${decoded.left}`);
  const sign1 = parseCoseSign1(decoded.right, 'CWT');
  if (isLeft(sign1)) return sign1;
  const typ = sign1.right.protectedHeader.get(HEADER_TYP);
  if (typ !== STATUS_LIST_CWT_MEDIA_TYPE) return left(`typ is ${JSON.stringify(typ ?? null)}, expected "${STATUS_LIST_CWT_MEDIA_TYPE}" in the protected header`);
  const chain = x5chainCertificates(sign1.right, 'CWT');
  if (isLeft(chain)) return left(`is not verifiable: ${chain.left}`);
  if (!verifyByCertificate(sign1.right, chain.right[0]!)) return left('signature does not verify with its x5chain leaf certificate key');
  const payload = sign1.right.payload ? decodeCbor(sign1.right.payload) : left('is missing');
  if (isLeft(payload) || !isMap(payload.right)) return left('CWT payload is not a CBOR map');
  const claims = payload.right;
  const statusList = claims.get(CWT_CLAIM.statusList);
  return checkClaims(
    { sub: claims.get(CWT_CLAIM.sub), iat: claims.get(CWT_CLAIM.iat), exp: claims.get(CWT_CLAIM.exp), nbf: claims.get(CWT_CLAIM.nbf), ttl: claims.get(CWT_CLAIM.ttl) },
    chain.right,
    expected,
    () => {
      if (!isMap(statusList)) return left('has no status_list map');
      const lst = statusList.get('lst');
      return isBytes(lst) ? decompressList(lst, statusList.get('bits'), expected.maxBytes) : left('status_list.lst is not a byte string');
    },
  );
};

/** The checks both forms share, over their claims by JWT name, once the signature verified. */
const checkClaims = (
  payload: Record<string, unknown>,
  chain: readonly x509.X509Certificate[],
  expected: TokenExpectations,
  readList: () => Either<string, StatusList>,
): Either<string, VerifiedStatusListToken> => {
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
  const list = readList();
  if (isLeft(list)) return list;
  return right({ chain, list: list.right, exp: exp.right, ttl: ttl as number | undefined });
};
