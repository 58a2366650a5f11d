// The issuer's Status List Token in JWT format (draft-ietf-oauth-status-list, section 5.1): header
// `typ: statuslist+jwt`; claims `iss`, `sub` (the list's URI, equal to the Referenced Token's
// `status.status_list.uri`), `iat`, `exp`, `ttl` and `status_list: {bits, lst}`.
import { SignJWT } from 'jose';
import { encodeLst, STATUS_LIST_TYP, type StatusList } from '../../statusList/statusList.js';
import type { IssuerSigningKey } from '../sdJwtVc.js';

export interface StatusListTokenToSign {
  /** `iss`: the Referenced Tokens' issuer; earlier drafts required it equal theirs. */
  readonly issuer: string;
  readonly uri: string;
  readonly list: StatusList;
  readonly iat: number;
  readonly exp: number;
  readonly ttl: number;
}

/** Signs with the Issuer Signing Certificate: the credentials' own `x5c`, so verifiers need no other trust. */
export const signStatusListToken = (key: IssuerSigningKey, token: StatusListTokenToSign): Promise<string> =>
  new SignJWT({
    iss: token.issuer,
    sub: token.uri,
    iat: token.iat,
    exp: token.exp,
    ttl: token.ttl,
    status_list: { bits: token.list.bits, lst: encodeLst(token.list) },
  })
    .setProtectedHeader({ alg: 'ES256', typ: STATUS_LIST_TYP, x5c: [...key.x5c] })
    .sign(key.privateKey);
