// What every issuance step needs, built once by the feature.
import type { Config } from '../config/config.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import type { EventStore } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import type { WalletProviderTrust } from '../trust/walletProviderTrust.js';
import type { ReadModels } from '../readside/readModels.js';
import type { StatusAllocator } from './status/allocation.js';
import type { CredentialFormats } from './credentialSigner.js';
import type { Issuer, Issuers } from './issuer.js';
import type { IssuanceSecrets } from './secrets.js';
import type { TenantConfigurations } from './tenantConfigurations.js';
import type { TenantSettings } from '../tenantIdentity/settings.js';
import type { WalletPolicyOf } from './walletPolicy.js';

export interface IssuanceContext {
  readonly config: Config;
  readonly log: Logger;
  readonly store: EventStore;
  readonly runner: ReadModels;
  readonly dataKeys: DataKeys;
  readonly secrets: IssuanceSecrets;
  /** Each tenant's own credential configurations. */
  readonly tenantConfigurations: TenantConfigurations;
  /** The deployment's credential issuer and each tenant's own (./issuer.ts). */
  readonly issuers: Issuers;
  /** One module per credential format: its signer and metadata (src/issuance/formats/registry.ts). */
  readonly formats: CredentialFormats;
  readonly statusAllocator: StatusAllocator;
  /** Each tenant's settings over the environment's (offer lifetime, authentication URL). */
  readonly settings: TenantSettings;
  /** Where wallet attestations must chain to: WALLET_PROVIDER_TRUST_ANCHORS and the wallet providers lists. */
  readonly walletProviders: WalletProviderTrust;
  /** The wallet attestation policy of an offer's tenant: its settings, else the two above (walletPolicy.ts). */
  readonly walletPolicyOf: WalletPolicyOf;
  readonly now: () => Date;
}

/** What a wallet-facing step serves: the credential issuer the request came to (resolved per request). */
export interface AtIssuer {
  readonly issuer: Issuer;
}

/**
 * The wallet-facing paths, under the credential issuer identifier: PUBLIC_URL for the
 * deployment's issuer, `{PUBLIC_URL}/issuers/{tenant_id}` for a tenant's own (TENANT_ISSUER_PREFIX).
 */
export const PATHS = {
  offer: '/oidc4vci/offers/:offer_id',
  token: '/oidc4vci/token',
  nonce: '/oidc4vci/nonce',
  credential: '/oidc4vci/credential',
  typeMetadata: '/oidc4vci/types/:credential_configuration_id',
  issuerMetadata: '/.well-known/openid-credential-issuer',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  par: '/oidc4vci/par',
  authorize: '/oidc4vci/authorize',
} as const;

/** Where a tenant's own issuer's endpoints are mounted: its identifier's path. */
export const TENANT_ISSUER_PREFIX = '/issuers/:tenant_id';

export const endpointUrl = (publicUrl: string, path: string): string => `${publicUrl}${path}`;

export const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
