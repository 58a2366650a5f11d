// The token endpoint's HTTP edge (RFC 6749 section 3.2): the form parsed (./request.ts), the use
// case (./redeemToken.ts) called, its error answered through src/issuance/walletErrors.ts, and
// the Token Response never cached.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { readForm } from '../../http/body.js';
import { requestIdOf } from '../../log.js';
import { CLIENT_ATTESTATION_HEADER, CLIENT_ATTESTATION_POP_HEADER } from '../walletAttestation.js';
import { issuerOf } from '../issuerRoutes.js';
import { oauthErrorOf } from '../walletErrors.js';
import { redeemToken, type TokenPorts } from './redeemToken.js';
import { parseTokenRequest, TOKEN_REQUEST_LIMIT } from './request.js';

export const tokenEndpoint = (ports: Omit<TokenPorts, 'issuer'>) => async (http: Context): Promise<void> => {
  const request = parseTokenRequest(await readForm(http, { limitBytes: TOKEN_REQUEST_LIMIT }));
  if (isLeft(request)) throw oauthErrorOf(request.left);
  const token = await redeemToken({ ...ports, issuer: issuerOf(http) }, {
    request: request.right,
    attestation: http.headers[CLIENT_ATTESTATION_HEADER],
    attestationPop: http.headers[CLIENT_ATTESTATION_POP_HEADER],
    dpop: http.headers['dpop'],
    metadata: { actor: 'wallet', requestId: requestIdOf(http) },
  });
  if (isLeft(token)) throw oauthErrorOf(token.left);
  const { accessToken, expiresIn, dpopNonce, authorizationDetails } = token.right;
  http.set('Cache-Control', 'no-store');
  http.set('Pragma', 'no-cache');
  http.set('DPoP-Nonce', dpopNonce);
  http.body = {
    access_token: accessToken,
    token_type: 'DPoP',
    expires_in: expiresIn,
    ...(authorizationDetails === undefined ? {} : { authorization_details: authorizationDetails }),
  };
};
