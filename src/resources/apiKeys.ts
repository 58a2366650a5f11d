// The `api-keys` kind: the tenant's own API keys (streams/apiKey.ts), the same keys that
// authenticate the management API. Creating one here makes a key that authenticates at once;
// deleting it revokes it; restoring it re-enables the same secret.
import type Router from '@koa/router';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { apiKeyStream, type ApiKeyEvent, type CreateApiKey, apiKeyResource } from '../../streams/apiKey.js';
import { StringMap } from '../../streams/resource.js';
import { readJson } from '../http/body.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { createApiKey } from '../tenancy/commands.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { etagOfEnvelope, wireEnvelope } from './envelope.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { metadataOf, versionedRoutes } from './routes.js';

export const apiKeysKind: VersionedKind<ApiKeyEvent, KindCommand<CreateApiKey, never>> = {
  path: 'api-keys',
  name: 'api-key',
  // Keys grant access to the tenant: managing them is operating the tenant.
  scope: 'admin',
  decider: apiKeyResource,
  streamOf: apiKeyStream,
  search: {
    filters: { expiration: 'BETWEEN_DATE_TIME', subject_id: 'EQUAL_STRING' },
    sorts: { DATA_EXPIRATION: 'expiration', DATA_SUBJECT_ID: 'subject_id' },
  },
};

const CreateBody = t.partial({ annotations: StringMap, labels: StringMap });

export const apiKeyRoutes = (router: Router, deps: ResourcesContext): void => {
  router.post('/api-keys', requireScope(apiKeysKind.scope), async (ctx) => {
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const principal = principalOf(ctx);
    await deps.idempotent(ctx, body, async () => {
      // The new key has the creator's scopes: a key can hand out no more than it holds.
      const created = await createApiKey(
        deps.store,
        { tenantId: principal.tenantId, scopes: principal.scopes, expiration: null, ...body },
        metadataOf(ctx),
      );
      if (isLeft(created)) throw new Error(`api key not created: ${created.left.error._tag}`);
      await deps.runner.waitFor(created.right.position, deps.config.readYourWritesTimeoutMs);
      const { resource, secret } = created.right;
      return {
        status: 201,
        // The only answer that ever carries the secret.
        body: wireEnvelope(resource, { secret }),
        headers: { ETag: etagOfEnvelope(resource), Location: `/api-keys/${resource.id}` },
      };
    });
  });
  versionedRoutes(router, apiKeysKind, deps);
};
