// First start: when BOOTSTRAP_API_KEY is set and the store has no tenant yet, create a default
// tenant holding that key. Fixed ids make it safe for several instances starting at once: the
// loser's append fails on `no_stream` and it finds the work done.
import { isLeft } from 'fp-ts/lib/Either.js';
import { allScopes } from '../../streams/apiKey.js';
import { countTenants } from '../../projections/tenants.js';
import type { EventStore } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import type { ReadModels } from '../readside/readModels.js';
import { createApiKey, createTenant, type NewApiKeyError, type TenantCommandError } from './commands.js';

export const BOOTSTRAP_TENANT_ID = '00000000-0000-4000-8000-000000000001';
export const BOOTSTRAP_KEY_ID = '00000000-0000-4000-8000-000000000002';

/** Another instance created it first: its append won on `no_stream`, or the decider found it there. */
const alreadyDone = (error: TenantCommandError | NewApiKeyError): boolean => {
  switch (error.kind) {
    case 'store':
      return error.error._tag === 'WrongExpectedRevision';
    case 'domain':
      return error.error._tag === 'TenantExists' || error.error._tag === 'ResourceExists';
  }
};

export const bootstrapTenant = async (
  store: EventStore,
  runner: ReadModels,
  secret: string,
  log: Logger,
  readYourWritesMs: number,
): Promise<void> => {
  await runner.whenCaughtUp();
  if (countTenants(runner.db) > 0) return;
  const metadata = { actor: 'bootstrap' };
  const tenant = await createTenant(store, { name: 'default', tenantId: BOOTSTRAP_TENANT_ID }, metadata);
  if (isLeft(tenant) && !alreadyDone(tenant.left)) throw new Error(`bootstrap tenant: ${tenant.left.error._tag}`);
  const key = await createApiKey(
    store,
    { tenantId: BOOTSTRAP_TENANT_ID, keyId: BOOTSTRAP_KEY_ID, secret, scopes: allScopes, expiration: null },
    metadata,
  );
  if (isLeft(key)) {
    if (!alreadyDone(key.left)) throw new Error(`bootstrap API key: ${key.left.error._tag}`);
    return;
  }
  await runner.waitFor(key.right.position, readYourWritesMs);
  log.info('bootstrap tenant created', { tenantId: BOOTSTRAP_TENANT_ID, keyId: BOOTSTRAP_KEY_ID });
};
