// `Authorization: Bearer <secret>` on the management listener. Runs before routing, so an
// unauthenticated caller learns nothing about which routes exist.
import type { Context, Middleware, Next } from 'koa';
import { findApiKeyBySecretHash } from '../../projections/apiKeys.js';
import type { Scope } from '../../streams/apiKey.js';
import { forbidden, HttpError, unauthorized } from '../http/problem.js';
import type { Sqlite } from '../sqlite/connection.js';
import { sameHash } from '../../streams/kernel.js';
import { hashSecret } from './secrets.js';

export interface Principal {
  readonly tenantId: string;
  readonly keyId: string;
  readonly scopes: readonly Scope[];
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/;
const challenge = { 'WWW-Authenticate': 'Bearer' };

export const authenticate =
  (readModels: Sqlite, now: () => Date = () => new Date()): Middleware =>
  async (ctx: Context, next: Next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    if (!match) throw new HttpError(unauthorized('Send an API key as `Authorization: Bearer <key>`.'), challenge);
    const presented = hashSecret(match[1]!);
    const key = findApiKeyBySecretHash(readModels, presented);
    // One answer for unknown, deleted and expired keys: which one it was is no business of the caller.
    const valid =
      key !== undefined &&
      sameHash(key.secretHash, presented) &&
      key.deletedAt === null &&
      (key.expiration === null || Date.parse(key.expiration) > now().getTime());
    if (!valid) throw new HttpError(unauthorized('The API key is unknown, expired or revoked.'), challenge);
    const principal: Principal = { tenantId: key.tenantId, keyId: key.keyId, scopes: key.scopes };
    ctx.state['principal'] = principal;
    await next();
  };

export const principalOf = (ctx: Context): Principal => {
  const principal = ctx.state['principal'] as Principal | undefined;
  if (!principal) throw new Error('route reached without authentication');
  return principal;
};

export const requireScope =
  (scope: Scope): Middleware =>
  async (ctx: Context, next: Next) => {
    if (!principalOf(ctx).scopes.includes(scope)) throw new HttpError(forbidden(`This operation needs the \`${scope}\` scope.`));
    await next();
  };
