// The HTTP edge of Idempotency-Key (src/resources/idempotency.ts): the key, the request's
// fingerprint and its caller from the request; the reply, replayed or not, onto the response.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Json } from '../eventstore/port.js';
import { principalOf } from '../tenancy/authenticate.js';
import { fingerprintOf, idempotently, type IdempotencyPorts } from './idempotency.js';
import { problemOf } from './problems.js';
import type { Reply } from './reply.js';
import { metadataOf } from './routes.js';

export const sendReply = (ctx: Context, reply: Reply): void => {
  ctx.status = reply.status;
  ctx.body = reply.body;
  // After the body, which would otherwise pick the Content-Type.
  for (const [name, value] of Object.entries(reply.headers)) ctx.set(name, value);
};

/** The `idempotent` of ResourcesContext: runs the write under the request's Idempotency-Key, if any, and sends its reply. */
export const idempotentWrites = (deps: IdempotencyPorts) => {
  const answer = idempotently(deps);
  return async (ctx: Context, request: Json, execute: () => Promise<Reply>): Promise<void> => {
    const answered = await answer(
      { tenantId: principalOf(ctx).tenantId, key: ctx.get('Idempotency-Key'), fingerprint: fingerprintOf(ctx.method, ctx.url, ctx.get('If-Match'), request), metadata: metadataOf(ctx) },
      execute,
    );
    if (isLeft(answered)) throw problemOf(answered.left);
    if (answered.right.replayed) ctx.set('Idempotent-Replayed', 'true');
    sendReply(ctx, answered.right.reply);
  };
};
