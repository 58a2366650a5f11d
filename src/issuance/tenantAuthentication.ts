// Where a tenant's users authenticate in the authorization code flow: the `authentication_url` of
// its settings, which `PUT /settings` and ops `tenants set-authentication` both write; in a store
// from before settings, the URL its tenant stream records; for the bootstrap tenant
// AUTHENTICATION_URL stands in when none is recorded. An offer may name its own.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { tenant, tenantStream } from '../../streams/tenant.js';
import { settingsStream, tenantSettings } from '../../streams/tenantSettings.js';
import type { Config } from '../config/config.js';
import { loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Position } from '../eventstore/port.js';
import { BOOTSTRAP_TENANT_ID } from '../tenancy/bootstrap.js';
import { changeSettings, type ChangeSettingsError } from '../tenantIdentity/settings.js';

export const configureTenantAuthentication = async (
  store: EventStore,
  request: { readonly tenantId: string; readonly url: string },
  metadata: EventMetadata,
): Promise<Either<ChangeSettingsError, { readonly changed: boolean; readonly position: Position | undefined }>> => {
  const changed = await changeSettings(store, request.tenantId, () => ({ authentication_url: request.url }), metadata);
  if (isLeft(changed)) return left(changed.left);
  return right({ changed: changed.right.position !== undefined, position: changed.right.position });
};

/**
 * The tenant's authentication URL, or undefined when it has none: its settings' (read from the
 * store, so a change is seen at once), else its tenant stream's (a store from before settings),
 * else, for the bootstrap tenant, AUTHENTICATION_URL.
 */
export const tenantAuthenticationUrl = async (store: EventStore, config: Pick<Config, 'authenticationUrl'>, tenantId: string): Promise<string | undefined> => {
  const settings = await loadStream(store, tenantSettings, settingsStream(tenantId));
  const own = isLeft(settings) ? undefined : tenantSettings.envelopeOf(settings.right.state)?.data['authentication_url'];
  if (typeof own === 'string') return own;
  const loaded = await loadStream(store, tenant, tenantStream(tenantId));
  const recorded = isLeft(loaded) || loaded.right.state.status === 'none' ? null : loaded.right.state.authenticationUrl;
  return recorded ?? (tenantId === BOOTSTRAP_TENANT_ID ? config.authenticationUrl : undefined);
};
