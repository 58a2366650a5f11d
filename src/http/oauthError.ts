// Wallet-facing routes answer OAuth-style errors (`{error, error_description}`, RFC 6749
// section 5.2 and its OpenID4VCI and RFC 9449 extensions), never problem bodies: that is what
// wallets parse. Route handlers throw OAuthError; `oauthErrors` writes it, and turns the shared
// body readers' problems and anything unexpected into the same shape.
import type { Context, Middleware, Next } from 'koa';
import { KeysUnavailable } from '../crypto/keyStore.js';
import { isHttpError } from './problem.js';
import type { Logger } from '../log.js';
import { requestIdOf } from '../log.js';

export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${status} ${error}: ${description}`);
  }
}

/** 400 `invalid_request` (RFC 6749 section 5.2): a parameter missing, repeated or malformed. */
export const invalidRequest = (description: string): OAuthError => new OAuthError(400, 'invalid_request', description);

/** 400 `invalid_grant` (RFC 6749 section 5.2): the code is unknown, spent, expired or not this client's. */
export const invalidGrant = (description: string): OAuthError => new OAuthError(400, 'invalid_grant', description);

/** `WWW-Authenticate` for a protected resource using DPoP (RFC 9449 section 7.1). */
export const dpopChallenge = (error: string, description: string): Record<string, string> => ({
  'WWW-Authenticate': `DPoP error="${error}", error_description="${description.replace(/["\\]/g, '')}", algs="ES256"`,
});

/**
 * `badRequest` is the error code for a malformed body on this route (`invalid_request` at the
 * token endpoint, `invalid_credential_request` at the credential endpoint).
 */
export const oauthErrors =
  (log: Logger, badRequest = 'invalid_request'): Middleware =>
  async (http: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      let failure: OAuthError;
      if (err instanceof OAuthError) failure = err;
      else if (isHttpError(err) && err.status < 500) failure = new OAuthError(err.status, badRequest, err.problem.detail, err.headers);
      else if (err instanceof KeysUnavailable) {
        log.error('wallet request failed: keys unavailable', { requestId: requestIdOf(http), method: http.method, err });
        failure = new OAuthError(500, 'server_error', 'The keys are unavailable; nothing was changed. Retry later.');
      } else {
        log.error('wallet request failed', { requestId: requestIdOf(http), method: http.method, err });
        failure = new OAuthError(500, 'server_error', 'An unexpected error occurred.');
      }
      for (const [name, value] of Object.entries(failure.headers)) http.set(name, value);
      http.set('Cache-Control', 'no-store');
      http.status = failure.status;
      http.body = { error: failure.error, error_description: failure.description };
    }
  };
