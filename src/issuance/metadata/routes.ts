// The metadata documents' HTTP edge (./documents.ts): built once from the configuration, served
// as they are; a Type Metadata request for no SD-JWT VC configuration is answered through
// src/issuance/walletErrors.ts.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Config } from '../../config/config.js';
import type { IssuanceContext } from '../context.js';
import { oauthErrorOf } from '../walletErrors.js';
import { authorizationServerMetadata, credentialIssuerMetadata, typeMetadataOf } from './documents.js';

export const metadataRoutes = (ports: Pick<IssuanceContext, 'configurations' | 'formats'> & { readonly config: Pick<Config, 'publicUrl'> }) => {
  const issuer = credentialIssuerMetadata(ports.config.publicUrl, ports.configurations.values(), ports.formats);
  const server = authorizationServerMetadata(ports.config.publicUrl);
  return {
    issuer: (http: Context): void => {
      http.body = issuer;
    },
    authorizationServer: (http: Context): void => {
      http.body = server;
    },
    type: (http: Context): void => {
      const metadata = typeMetadataOf(ports.configurations, http.params['credential_configuration_id'] ?? '');
      if (isLeft(metadata)) throw oauthErrorOf(metadata.left);
      http.body = metadata.right;
    },
  };
};
