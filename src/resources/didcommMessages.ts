// The `didcomm-messages` kind: `POST /didcomm-messages` records a message from the tenant's DID
// to a recipient (the use case, src/resources/sendDidcommMessage.ts), delivered like a callback
// (src/didcomm/); the versioned routes read it back, its recipient opened and its delivery shown.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { DIDCOMM_KIND, didcommKeyOwner, didcommStream, didcommMessage, RECIPIENT, SealedRecipient, type DidcommMessageEvent, type SendDidcommMessage } from '../../streams/didcommMessage.js';
import { openFor } from '../crypto/dataKeys.js';
import { deliveryOfMessage } from '../didcomm/deliveryState.js';
import { readJson } from '../http/body.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { ENVELOPE_ONLY } from './search.js';
import { createResource, versionedRoutes } from './routes.js';
import { problemOf } from './problems.js';
import { SendBody, sendDidcommMessage } from './sendDidcommMessage.js';

export const didcommKind = (deps: Pick<ResourcesContext, 'dataKeys'> & { readonly runner: Pick<ResourcesContext['runner'], 'db'> }): VersionedKind<DidcommMessageEvent, KindCommand<SendDidcommMessage, never>> => ({
  path: 'didcomm-messages',
  name: DIDCOMM_KIND.name,
  scope: 'resources',
  decider: didcommMessage,
  streamOf: didcommStream,
  search: ENVELOPE_ONLY,
  render: async (envelope) => {
    const sealed = envelope.data['to'];
    const key = await deps.dataKeys.find(didcommKeyOwner(envelope.id));
    const to = key && SealedRecipient.is(sealed) ? openFor(key, RECIPIENT, sealed) : null;
    const { transport: _, ...data } = envelope.data;
    return { ...envelope, data: { ...data, to, delivery: await deliveryOfMessage(deps.runner.db, envelope) } };
  },
});

export const didcommRoutes = (router: Router, deps: ResourcesContext): void => {
  const kind = didcommKind(deps);

  router.post('/didcomm-messages', requireScope(kind.scope), async (ctx) => {
    const body = decode(SendBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const sendDeps = { db: deps.runner.db, dataKeys: deps.dataKeys, publicUrl: deps.config.publicUrl, allowPrivateNetworks: deps.config.egressAllowPrivateNetworks, now: deps.now };
      const sent = await sendDidcommMessage(sendDeps, tenantId, body);
      if (isLeft(sent)) throw problemOf(sent.left);
      return createResource(deps, kind, ctx, sent.right.data.messageId, sent.right);
    });
  });

  versionedRoutes(router, kind, deps);
};
