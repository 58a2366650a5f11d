// `POST /support-requests`: a tenant asks the operator for something (a data dump, a deletion, a
// rectification, anything else). Recorded on its own stream with the message sealed.
import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { supportRequest, supportRequestKeyOwner, supportRequestStream, SupportRequestType, type Command } from '../../streams/supportRequest.js';
import { readJson } from '../http/body.js';
import { NonEmptyString } from '../http/codecs.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { metadataOf } from './routes.js';
import { handleCommand } from '../eventstore/handle.js';

const SupportRequestBody = t.type({ message: t.refinement(NonEmptyString, (s) => s.trim() !== '', 'a non-empty message'), type: SupportRequestType });

export const supportRequestRoutes = (router: Router, deps: ResourcesContext): void => {
  router.post('/support-requests', requireScope('resources'), async (ctx) => {
    const body = decode(SupportRequestBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const requestId = randomUUID();
      const key = await deps.dataKeys.issue(supportRequestKeyOwner(requestId));
      if (isLeft(key)) throw new Error(`support request data key: ${key.left._tag}`);
      const createdAt = deps.now().toISOString();
      const command: Command = {
        type: 'CreateSupportRequest',
        data: { requestId, tenantId, type: body.type, message: key.right.seal(body.message, 'support-request-message'), at: createdAt },
      };
      // A new id's stream: nothing to read.
      const handled = await handleCommand(deps.store, supportRequest, supportRequestStream(requestId), command, {
        commandId: requestId,
        metadata: metadataOf(ctx),
        loaded: { state: supportRequest.initialState, expectedRevision: 'no_stream' },
      });
      if (isLeft(handled)) throw new Error(`support request not recorded: ${handled.left._tag}`);
      deps.log.info('support request received', { requestId, type: body.type });
      return { status: 201, body: { id: requestId, type: body.type, created_at: createdAt }, headers: {} };
    });
  });
};
