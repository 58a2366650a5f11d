// Where a tenant's users authenticate in the authorization code flow: the URL each tenant
// configures (ops `tenants set-authentication`), recorded on its tenant stream; for the bootstrap
// tenant AUTHENTICATION_URL stands in when none is recorded. An offer may name its own.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { tenant, tenantStream, type Command, type DomainError } from '../../streams/tenant.js';
import type { Config } from '../config/config.js';
import { handleCommand, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore, Position } from '../eventstore/port.js';
import { BOOTSTRAP_TENANT_ID } from '../tenancy/bootstrap.js';

export const configureTenantAuthentication = async (
  store: EventStore,
  request: { readonly tenantId: string; readonly url: string },
  metadata: EventMetadata,
): Promise<Either<DomainError | AppendError, { readonly changed: boolean; readonly position: Position | undefined }>> => {
  const command: Command = { type: 'ConfigureTenantAuthentication', data: { ...request, at: new Date().toISOString() } };
  const result = await handleCommand(store, tenant, tenantStream(request.tenantId), command, { commandId: randomUUID(), metadata, retries: 1 });
  if (isLeft(result)) {
    switch (result.left.kind) {
      case 'domain':
      case 'store':
        return left(result.left.error);
    }
  }
  return right({ changed: result.right.events.length > 0, position: result.right.position });
};

/** The tenant's authentication URL, or undefined when it has none. */
export const tenantAuthenticationUrl = async (store: EventStore, config: Pick<Config, 'authenticationUrl'>, tenantId: string): Promise<string | undefined> => {
  const loaded = await loadStream(store, tenant, tenantStream(tenantId));
  const recorded = isLeft(loaded) || loaded.right.state.status === 'none' ? null : loaded.right.state.authenticationUrl;
  return recorded ?? (tenantId === BOOTSTRAP_TENANT_ID ? config.authenticationUrl : undefined);
};
