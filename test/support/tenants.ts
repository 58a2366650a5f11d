// A fresh tenant with an API key of the scopes asked for, visible to the service's reads.
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Scope } from '../../streams/apiKey.js';
import { createApiKey, createTenant } from '../../src/tenancy/commands.js';
import type { TestService } from './service.js';

export const newTenant = async (s: TestService, scopes: readonly Scope[] = ['admin', 'connector', 'resources']): Promise<{ readonly tenantId: string; readonly key: string }> => {
  const tenant = await createTenant(s.service.store, { name: 'tenant' }, { actor: 'test' });
  if (isLeft(tenant)) throw new Error(`tenant not created: ${tenant.left.error._tag}`);
  const key = await createApiKey(s.service.store, { tenantId: tenant.right.tenantId, scopes, expiration: null }, { actor: 'test' });
  if (isLeft(key)) throw new Error(`key not created: ${key.left.error._tag}`);
  await s.service.runner.waitFor(key.right.position, 5000);
  return { tenantId: tenant.right.tenantId, key: key.right.secret };
};
