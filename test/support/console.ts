// What the console's tests share: API keys of chosen scopes (in the bootstrap tenant or a new
// one), and reading a server-sent event stream with fetch() as the console does.
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Scope } from '../../streams/apiKey.js';
import { BOOTSTRAP_TENANT_ID } from '../../src/tenancy/bootstrap.js';
import { createApiKey, createTenant } from '../../src/tenancy/commands.js';
import type { TestService } from './service.js';

export interface TestKey {
  readonly tenantId: string;
  readonly secret: string;
}

/** A key with `scopes`, in the bootstrap tenant or, with `tenantName`, in a new tenant of that name. */
export const keyWith = async (s: TestService, scopes: readonly Scope[], tenantName?: string): Promise<TestKey> => {
  let tenantId = BOOTSTRAP_TENANT_ID;
  if (tenantName !== undefined) {
    const tenant = await createTenant(s.service.store, { name: tenantName }, { actor: 'test' });
    if (isLeft(tenant)) throw new Error(`tenant: ${tenant.left.error._tag}`);
    tenantId = tenant.right.tenantId;
  }
  const key = await createApiKey(s.service.store, { tenantId, scopes: [...scopes], expiration: null }, { actor: 'test' });
  if (isLeft(key)) throw new Error(`key: ${key.left.error._tag}`);
  await s.service.runner.waitFor(key.right.position, 5000);
  return { tenantId, secret: key.right.secret };
};

/** The `data` of each server-sent event of an open text/event-stream answer, parsed, as they come. */
export async function* serverSentEvents(response: Response): AsyncGenerator<Record<string, unknown>> {
  if (!response.body) throw new Error('no body');
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
      if (data !== '') yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}
