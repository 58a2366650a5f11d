// Replacing a credential configuration (the use case, no HTTP; issue 38): the whole configuration,
// checked by the configuration rules; its `id` names the resource, so it cannot change.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest, type ResourceAddress } from '../../projections/resources.js';
import { configurationResourceId } from '../../streams/credentialConfiguration.js';
import type { ResourceData } from '../../streams/resource.js';
import type { SqlReader } from '../../projections/projection.js';
import { checkConfiguration, configurationData, type ConfigurationRefused } from './createCredentialConfiguration.js';

/** The replacing configuration names another `id` than the resource's: 400 at `data.id`. */
export type ConfigurationIdChanged = { readonly _tag: 'ConfigurationIdChanged'; readonly id: string };

/** The kind's operation replacing the configuration (the command's target is the route's). */
export type ConfigurationReplacement = { readonly type: 'ReplaceCredentialConfiguration'; readonly data: { readonly configuration: ResourceData } };

/**
 * The change replacing the configuration at `address` with `data`: refused where the rules refuse
 * it, NotFound where the id it names is not the tenant's resource at all (as the change itself
 * would answer), ConfigurationIdChanged where it is and the `id` differs.
 */
export const replaceCredentialConfiguration = (
  db: SqlReader,
  address: ResourceAddress,
  data: unknown,
): Either<ConfigurationRefused | ConfigurationIdChanged | { readonly _tag: 'NotFound' }, ConfigurationReplacement> => {
  const checked = checkConfiguration(data);
  if (isLeft(checked)) return checked;
  const configuration = checked.right;
  if (configurationResourceId(address.tenantId, configuration.id) !== address.id) {
    return left(findLatest(db, address) ? { _tag: 'ConfigurationIdChanged', id: configuration.id } : { _tag: 'NotFound' });
  }
  return right({ type: 'ReplaceCredentialConfiguration', data: { configuration: configurationData(configuration) } });
};
