// POST /oidc4vci/par, the pushed authorization request endpoint's HTTP edge (RFC 9126 section
// 2): the form parsed (./request.ts), the use case (./pushAuthorizationRequest.ts) called, its
// error answered through src/issuance/walletErrors.ts; 201 with the request_uri, never cached.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { readForm } from '../../http/body.js';
import { requestIdOf } from '../../log.js';
import { CLIENT_ATTESTATION_HEADER, CLIENT_ATTESTATION_POP_HEADER } from '../walletAttestation.js';
import { issuerOf } from '../issuerRoutes.js';
import { oauthErrorOf } from '../walletErrors.js';
import { pushAuthorizationRequest, type ParPorts } from './pushAuthorizationRequest.js';
import { PAR_REQUEST_LIMIT, parseAuthorizationRequest } from './request.js';

export const parEndpoint = (ports: Omit<ParPorts, 'issuer'>) => async (http: Context): Promise<void> => {
  const atIssuer = { ...ports, issuer: issuerOf(http) };
  const request = parseAuthorizationRequest(await readForm(http, { limitBytes: PAR_REQUEST_LIMIT }), atIssuer);
  if (isLeft(request)) throw oauthErrorOf(request.left);
  const pushed = await pushAuthorizationRequest(atIssuer, {
    request: request.right,
    attestation: http.headers[CLIENT_ATTESTATION_HEADER],
    attestationPop: http.headers[CLIENT_ATTESTATION_POP_HEADER],
    dpop: http.headers['dpop'],
    metadata: { actor: 'wallet', requestId: requestIdOf(http) },
  });
  if (isLeft(pushed)) throw oauthErrorOf(pushed.left);
  http.status = 201;
  http.set('Cache-Control', 'no-store');
  http.set('DPoP-Nonce', pushed.right.dpopNonce);
  http.body = { request_uri: pushed.right.requestUri, expires_in: pushed.right.expiresIn };
};
