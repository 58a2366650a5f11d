// The wallet's form at the response URI (response mode `direct_post.jwt`, OpenID4VP 1.0 section
// 8.3): either `response=<JWE>` or a plain OAuth error response with `state`; anything else is
// no answer (a 400 that changes nothing).
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { FormFields } from '../../http/body.js';
import { ERROR_CODE } from '../authorizationResponse.js';

export type WalletAnswer =
  | { readonly kind: 'response'; readonly jwe: string }
  | { readonly kind: 'error'; readonly error: string; readonly state: string | undefined };

const single = (fields: FormFields, name: string): string | undefined => {
  const value = fields[name];
  return typeof value === 'string' ? value : undefined;
};

/** The wallet's form as an answer, or why it is not one (a 400 that changes nothing). */
export const parseWalletAnswer = (fields: FormFields): Either<string, WalletAnswer> => {
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'string') return left(`parameter ${name} appears more than once`);
  }
  const response = single(fields, 'response');
  const error = single(fields, 'error');
  if (response !== undefined && error === undefined) return right({ kind: 'response', jwe: response });
  if (error !== undefined && response === undefined) {
    if (!ERROR_CODE.test(error)) return left('error is not an OAuth 2.0 error code');
    return right({ kind: 'error', error, state: single(fields, 'state') });
  }
  return left('expected either response (direct_post.jwt) or error');
};
