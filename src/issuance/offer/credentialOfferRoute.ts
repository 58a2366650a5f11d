// GET /oidc4vci/offers/:offer_id, the credential offer's HTTP edge: the use case
// (./credentialOffer.ts) called, its error answered through src/issuance/walletErrors.ts, the
// offer never cached.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { issuerOf } from '../issuerRoutes.js';
import { oauthErrorOf } from '../walletErrors.js';
import { credentialOffer, type CredentialOfferPorts } from './credentialOffer.js';

export const credentialOfferEndpoint = (ports: Omit<CredentialOfferPorts, 'issuer'>) => async (http: Context): Promise<void> => {
  const found = await credentialOffer({ ...ports, issuer: issuerOf(http) }, http.params['offer_id'] ?? '');
  if (isLeft(found)) throw oauthErrorOf(found.left);
  http.set('Cache-Control', 'no-store');
  http.body = found.right;
};
