// Creating a credential configuration (the use case, no HTTP; issue 38): one configuration in the
// shape of an entry of the CREDENTIAL_CONFIGURATIONS file, checked by the same rules
// (src/issuance/configurations.ts), every refusal naming its field. Its resource id derives from
// the tenant and the configuration's own `id` (streams/credentialConfiguration.ts), so the id is
// unique in the tenant by construction and a second creation of it is refused (live: replace it;
// deleted: restore it, which keeps one history per id).
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import { configurationResourceId, type CreateCredentialConfiguration } from '../../streams/credentialConfiguration.js';
import type { ResourceData, StringMap } from '../../streams/resource.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { checkCredentialConfiguration, type ConfigurationProblem, type CredentialConfiguration } from '../issuance/configurations.js';
import type { SqlReader } from '../../projections/projection.js';
import { recordNamedCreation, type Recorded } from './create.js';
import { credentialConfigurationsKind } from './credentialConfigurationsKind.js';

/** The configuration breaks the configuration rules: 400, one entry per problem, located in `data`. */
export type ConfigurationRefused = { readonly _tag: 'ConfigurationRefused'; readonly problems: readonly ConfigurationProblem[] };
/** The tenant has a configuration of this id, live or deleted: 409. */
export type ConfigurationExists = { readonly _tag: 'ConfigurationExists'; readonly id: string; readonly deleted: boolean };

/** The configuration a request's `data` holds, or every problem the rules find. */
export const checkConfiguration = (data: unknown): Either<ConfigurationRefused, CredentialConfiguration> => {
  const checked = checkCredentialConfiguration(data);
  return isLeft(checked) ? left({ _tag: 'ConfigurationRefused', problems: checked.left }) : checked;
};

/** A checked configuration as a resource's data. */
export const configurationData = (configuration: CredentialConfiguration): ResourceData => configuration as unknown as ResourceData;

export interface CreateCredentialConfigurationRequest {
  readonly tenantId: string;
  readonly configuration: CredentialConfiguration;
  readonly annotations: StringMap;
  readonly labels: StringMap;
  readonly at: string;
}

/** Records the tenant's new configuration; ConfigurationExists where it has one of that id. */
export const createCredentialConfiguration = async (
  deps: { readonly store: EventStore; readonly db: SqlReader },
  request: CreateCredentialConfigurationRequest,
  metadata: EventMetadata,
): Promise<Either<ConfigurationExists, Recorded>> => {
  const { tenantId, configuration } = request;
  const kind = credentialConfigurationsKind;
  const resourceId = configurationResourceId(tenantId, configuration.id);
  const held = findLatest(deps.db, { tenantId, kind: kind.name, id: resourceId });
  if (held) return left({ _tag: 'ConfigurationExists', id: configuration.id, deleted: held.deletedAt !== null });
  const create: CreateCredentialConfiguration = {
    type: 'CreateCredentialConfiguration',
    data: { resourceId, tenantId, configuration: configurationData(configuration), annotations: request.annotations, labels: request.labels, at: request.at },
  };
  const created = await recordNamedCreation(deps.store, kind, resourceId, create, metadata);
  // A creation racing this one won (the read model had not shown it yet).
  return isLeft(created) ? left({ _tag: 'ConfigurationExists', id: configuration.id, deleted: false }) : right(created.right);
};
