// POST /oidc4vci/nonce, the nonce endpoint's HTTP edge (OpenID4VCI section 7.2): no
// authentication, nothing recorded, never cached.
import type { Context } from 'koa';
import { issuerOf } from '../issuerRoutes.js';
import type { IssuanceSecrets } from '../secrets.js';
import { issueCNonce } from './cNonce.js';

export const nonceEndpoint = (secrets: IssuanceSecrets, ttlSeconds: number) => (http: Context): void => {
  http.set('Cache-Control', 'no-store');
  http.body = { c_nonce: issueCNonce(secrets, new Date(), ttlSeconds, issuerOf(http).recorded) };
};
