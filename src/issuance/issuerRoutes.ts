// Which credential issuer a wallet request came to (./issuer.ts): the deployment's for today's
// paths, a tenant's own for the paths under `/issuers/{tenant_id}` and its path-inserted
// well-known documents. A tenant without an issuer of its own (no active issuer key, or no
// configuration) has none there: 404, as for a path that does not exist. The issuer is kept in
// the request's state for the step's edge to read with `issuerOf`.
import type { Context, Next } from 'koa';
import { OAuthError } from '../http/oauthError.js';
import type { Issuer, Issuers } from './issuer.js';

const ISSUER = Symbol('issuer');

/** The issuer the request came to, as `atDeployment` or `atTenant` resolved it. */
export const issuerOf = (http: Context): Issuer => {
  const issuer = (http.state as { [ISSUER]?: Issuer })[ISSUER];
  if (issuer === undefined) throw new Error('no credential issuer resolved for this route');
  return issuer;
};

const keep = (http: Context, issuer: Issuer): void => {
  (http.state as { [ISSUER]?: Issuer })[ISSUER] = issuer;
};

/** Today's wallet paths: the deployment's issuer. */
export const atDeployment = (issuers: Pick<Issuers, 'deployment'>) => (http: Context, next: Next): Promise<unknown> => {
  keep(http, issuers.deployment);
  return next();
};

/** Paths naming `:tenant_id`: that tenant's own issuer, or 404 when it has none. */
export const atTenant = (issuers: Pick<Issuers, 'ofTenant'>) => async (http: Context, next: Next): Promise<unknown> => {
  const issuer = await issuers.ofTenant(http.params['tenant_id'] ?? '');
  if (issuer === undefined) throw new OAuthError(404, 'not_found', 'No credential issuer at this path: the tenant has no active issuer key or no credential configuration.');
  keep(http, issuer);
  return next();
};
