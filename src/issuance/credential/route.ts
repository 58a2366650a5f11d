// The credential endpoint's HTTP edge (OpenID4VCI section 8): the request as received goes to the
// use case (./issueCredential.ts); its error is answered through src/issuance/walletErrors.ts.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { readJson } from '../../http/body.js';
import { requestIdOf } from '../../log.js';
import { issuerOf } from '../issuerRoutes.js';
import { oauthErrorOf } from '../walletErrors.js';
import { issueCredential, type CredentialPorts } from './issueCredential.js';
import { CREDENTIAL_REQUEST_LIMIT } from './request.js';

export const credentialEndpoint = (ports: Omit<CredentialPorts, 'issuer'>) => async (http: Context): Promise<void> => {
  const issued = await issueCredential({ ...ports, issuer: issuerOf(http) }, {
    authorization: http.get('Authorization'),
    accessTokenInQuery: http.query['access_token'] !== undefined,
    dpop: http.headers['dpop'],
    readBody: () => readJson(http, { limitBytes: CREDENTIAL_REQUEST_LIMIT }),
    metadata: { actor: 'wallet', requestId: requestIdOf(http) },
  });
  if (isLeft(issued)) throw oauthErrorOf(issued.left);
  http.set('Cache-Control', 'no-store');
  http.set('DPoP-Nonce', issued.right.dpopNonce);
  http.body = { credentials: [{ credential: issued.right.credential }] };
};
