// The Token Request (RFC 6749 section 4.1.3; OpenID4VCI section 6.1 for the pre-authorized code
// grant) as this issuer takes it, from its form fields: the grant and its parameters, each given
// at most once (RFC 6749 section 3.2). Parameters are read in the order the endpoint always read
// them, so the first one missing or repeated is the one named.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { FormFields } from '../../http/body.js';
import { AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT } from '../context.js';
import { challengeOf } from '../pkce.js';
import { formField } from '../form.js';

/** The largest form read. */
export { FORM_LIMIT as TOKEN_REQUEST_LIMIT } from '../form.js';

export type TokenRequestError =
  | { readonly _tag: 'TokenParameterInvalid'; readonly reason: string }
  | { readonly _tag: 'GrantTypeUnsupported'; readonly reason: string };

/** A field given once (or not at all); a repeated one is an error only when it is read. */
export type Field = Either<TokenRequestError, string | undefined>;

export type TokenRequest =
  | {
      readonly grant: 'pre-authorized_code';
      readonly preAuthorizedCode: string;
      readonly txCode: string | undefined;
      /** Read only when the wallet authenticates. */
      readonly clientId: Field;
    }
  | {
      readonly grant: 'authorization_code';
      readonly code: string;
      /** S256 of the code_verifier (RFC 7636 section 4.6). */
      readonly codeChallenge: string;
      readonly redirectUri: string;
      readonly clientId: Field;
    };

const invalid = (reason: string): TokenRequestError => ({ _tag: 'TokenParameterInvalid', reason });

export const field = (fields: FormFields, name: string): Field => {
  const value = formField(fields, name);
  return isLeft(value) ? left(invalid(value.left)) : value;
};

const required = (fields: FormFields, name: string, reason = `${name} is required.`): Either<TokenRequestError, string> => {
  const value = field(fields, name);
  if (isLeft(value)) return value;
  return value.right === undefined ? left(invalid(reason)) : right(value.right);
};

export const parseTokenRequest = (fields: FormFields): Either<TokenRequestError, TokenRequest> => {
  const grantType = required(fields, 'grant_type');
  if (isLeft(grantType)) return grantType;
  if (grantType.right === AUTHORIZATION_CODE_GRANT) {
    const code = required(fields, 'code');
    if (isLeft(code)) return code;
    const verifier = required(fields, 'code_verifier', 'code_verifier is required (PKCE).');
    if (isLeft(verifier)) return verifier;
    const redirectUri = required(fields, 'redirect_uri');
    if (isLeft(redirectUri)) return redirectUri;
    const codeChallenge = challengeOf(verifier.right);
    if (codeChallenge === undefined) return left(invalid('code_verifier must be 43-128 characters of [A-Za-z0-9-._~].'));
    return right({ grant: 'authorization_code', code: code.right, codeChallenge, redirectUri: redirectUri.right, clientId: field(fields, 'client_id') });
  }
  if (grantType.right !== PRE_AUTHORIZED_CODE_GRANT) {
    return left({ _tag: 'GrantTypeUnsupported', reason: `Only ${PRE_AUTHORIZED_CODE_GRANT} and ${AUTHORIZATION_CODE_GRANT} are supported.` });
  }
  const code = required(fields, 'pre-authorized_code');
  if (isLeft(code)) return code;
  const txCode = field(fields, 'tx_code');
  if (isLeft(txCode)) return txCode;
  return right({ grant: 'pre-authorized_code', preAuthorizedCode: code.right, txCode: txCode.right, clientId: field(fields, 'client_id') });
};
