// The issuer's Status List Token (draft-ietf-oauth-status-list, section 5), in both forms:
// - JWT (5.1): header `typ: statuslist+jwt`; claims `iss`, `sub` (the list's URI, equal to the
//   Referenced Token's `status.status_list.uri`), `iat`, `exp`, `ttl` and `status_list: {bits, lst}`.
// - CWT (5.2): a COSE_Sign1 with `typ` (16) `application/statuslist+cwt` and `alg` ES256 protected,
//   `x5chain` (33); claims `sub` (2), `iat` (6), `exp` (4), `ttl` (65534) and `status_list`
//   (65533) `{bits, lst}` with `lst` the compressed bytes.
import { signCompactJws } from '../../crypto/jws.js';
import { encodeCbor, Tag } from '../../mdoc/cbor.js';
import { COSE_SIGN1_TAG, HEADER_TYP, signCoseSign1, x5chainHeader } from '../../mdoc/cose.js';
import { compressList, CWT_CLAIM, encodeLst, STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_TYP, type StatusList } from '../../statusList/statusList.js';
import { coseSignerOf, type IssuerSigningKey } from '../signingKey.js';

export interface StatusListTokenToSign {
  /** `iss`: the Referenced Tokens' issuer; earlier drafts required it equal theirs (JWT only). */
  readonly issuer: string;
  readonly uri: string;
  readonly list: StatusList;
  readonly iat: number;
  readonly exp: number;
  readonly ttl: number;
}

/** Signs with the Issuer Signing Certificate: the credentials' own `x5c`, so verifiers need no other trust. */
export const signStatusListToken = (key: IssuerSigningKey, token: StatusListTokenToSign): Promise<string> =>
  signCompactJws(key.signer, { typ: STATUS_LIST_TYP, x5c: [...key.x5c] }, {
    iss: token.issuer,
    sub: token.uri,
    iat: token.iat,
    exp: token.exp,
    ttl: token.ttl,
    status_list: { bits: token.list.bits, lst: encodeLst(token.list) },
  });

/** The CWT form, signed by the same key and carrying the same chain (in `x5chain`). */
export const signStatusListCwt = async (key: IssuerSigningKey, token: StatusListTokenToSign): Promise<Uint8Array> => {
  const claims = new Map<number, unknown>([
    [CWT_CLAIM.sub, token.uri],
    [CWT_CLAIM.iat, token.iat],
    [CWT_CLAIM.exp, token.exp],
    [CWT_CLAIM.ttl, token.ttl],
    [CWT_CLAIM.statusList, new Map<string, unknown>([['bits', token.list.bits], ['lst', compressList(token.list)]])],
  ]);
  const signer = coseSignerOf(key);
  const sign1 = await signCoseSign1(encodeCbor(claims), signer.signer, x5chainHeader(signer.x5chain), {
    protectedHeader: new Map([[HEADER_TYP, STATUS_LIST_CWT_MEDIA_TYPE]]),
  });
  return encodeCbor(new Tag(COSE_SIGN1_TAG, sign1));
};
