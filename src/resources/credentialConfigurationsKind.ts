// The `credential-configurations` kind (issue 38; streams/credentialConfiguration.ts), what its use
// cases (createCredentialConfiguration.ts, replaceCredentialConfiguration.ts) and its routes
// (credentialConfigurations.ts) share.
import {
  CREDENTIAL_CONFIGURATION_KIND,
  credentialConfiguration,
  credentialConfigurationStream,
  type CreateCredentialConfiguration,
  type CredentialConfigurationEvent,
  type ReplaceCredentialConfiguration,
} from '../../streams/credentialConfiguration.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { ENVELOPE_ONLY } from './search.js';

export const credentialConfigurationsKind: VersionedKind<CredentialConfigurationEvent, KindCommand<CreateCredentialConfiguration, ReplaceCredentialConfiguration>> = {
  path: 'credential-configurations',
  name: CREDENTIAL_CONFIGURATION_KIND.name,
  scope: 'admin',
  decider: credentialConfiguration,
  streamOf: credentialConfigurationStream,
  search: ENVELOPE_ONLY,
};
