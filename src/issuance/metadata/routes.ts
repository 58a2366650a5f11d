// The metadata documents' HTTP edge (./documents.ts): built for the credential issuer the request
// came to (src/issuance/issuerRoutes.ts resolves it), so a tenant's own issuer shows its own
// identifier and its configurations at their current revisions; a Type Metadata request for no
// SD-JWT VC configuration is answered through src/issuance/walletErrors.ts.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { IssuanceContext } from '../context.js';
import { issuerOf } from '../issuerRoutes.js';
import { oauthErrorOf } from '../walletErrors.js';
import { authorizationServerMetadata, credentialIssuerMetadata, typeMetadataOf } from './documents.js';

export const metadataRoutes = (ports: Pick<IssuanceContext, 'formats'>) => ({
  issuer: (http: Context): void => {
    const issuer = issuerOf(http);
    http.body = credentialIssuerMetadata(issuer.identifier, issuer.configurations.values(), ports.formats);
  },
  authorizationServer: (http: Context): void => {
    http.body = authorizationServerMetadata(issuerOf(http).identifier);
  },
  type: (http: Context): void => {
    const metadata = typeMetadataOf(issuerOf(http).configurations, http.params['credential_configuration_id'] ?? '');
    if (isLeft(metadata)) throw oauthErrorOf(metadata.left);
    http.body = metadata.right;
  },
});
