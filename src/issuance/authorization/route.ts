// GET /oidc4vci/authorize?client_id&request_uri, the authorization endpoint's HTTP edge: the
// query parsed (./request.ts), the use case (./startAuthorization.ts) called, the browser
// redirected. Errors are shown, not redirected: the redirect_uri is trusted only once the request
// is (RFC 6749 section 4.1.2.1); they are answered through src/issuance/walletErrors.ts.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { requestIdOf } from '../../log.js';
import { issuerOf } from '../issuerRoutes.js';
import { oauthErrorOf } from '../walletErrors.js';
import { parseStartRequest } from './request.js';
import { startAuthorization, type AuthorizePorts } from './startAuthorization.js';

export const authorizeEndpoint = (ports: Omit<AuthorizePorts, 'issuer'>) => async (http: Context): Promise<void> => {
  const request = parseStartRequest(http.query);
  if (isLeft(request)) throw oauthErrorOf(request.left);
  const started = await startAuthorization({ ...ports, issuer: issuerOf(http) }, request.right, { actor: 'wallet', requestId: requestIdOf(http) });
  if (isLeft(started)) throw oauthErrorOf(started.left);
  http.set('Cache-Control', 'no-store');
  http.redirect(started.right.redirectTo);
};
