// The routes of a tenant's singleton resource (`/verifier`, `/settings`; streams/singleton.ts):
// `GET /{path}`, `PUT /{path}` (If-Match), `GET /{path}/history`, `GET /{path}/revisions/{n}`.
// The reads (revision 1 implicit from the tenant's creation) are readSingleton.ts, the change
// updateSingleton.ts; each route parses, calls and answers refusals through problems.ts.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { Event } from '../../streams/event.js';
import type { AnyKindCommand, Envelope, ResourceData } from '../../streams/resource.js';
import type { Json } from '../eventstore/port.js';
import { noneMatchHits, requireIfMatch } from '../http/conditional.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import type { ResourcesContext } from './context.js';
import { etagOfEnvelope, resourceReply, wireEnvelope } from './envelope.js';
import { problemOf, type ResourcesError } from './problems.js';
import { latestSingleton, singletonHistory, singletonOf, singletonRevision, type SingletonAddress, type SingletonKind } from './readSingleton.js';
import { metadataOf, rendered, revisionOf } from './routes.js';
import { updateSingleton, type SingletonChange } from './updateSingleton.js';

/** The caller's singleton of `kind`; 404 while the read model does not show its tenant yet. */
const addressOf = (ctx: Context, deps: ResourcesContext, kind: { readonly name: string }): SingletonAddress => {
  const a = singletonOf(deps.runner.db, principalOf(ctx).tenantId, kind);
  if (isLeft(a)) throw problemOf(a.left);
  return a.right;
};

const answer = async <E extends Event, C extends AnyKindCommand>(ctx: Context, kind: SingletonKind<E, C>, envelope: Envelope | undefined): Promise<void> => {
  if (!envelope) throw problemOf({ _tag: 'NotFound' });
  ctx.set('ETag', etagOfEnvelope(envelope));
  if (noneMatchHits(ctx, etagOfEnvelope(envelope))) {
    ctx.status = 304;
    return;
  }
  ctx.body = wireEnvelope(await rendered(kind, ctx, envelope));
};

/**
 * Mounts the singleton's routes. `read` decodes and checks the PUT body (what Idempotency-Key
 * compares); `changeOf` turns it, with the data of the revision being changed, into the kind's
 * operation (the kind's use case).
 */
export const singletonRoutes = <E extends Event, C extends AnyKindCommand, R extends Json>(
  router: Router,
  kind: SingletonKind<E, C>,
  deps: ResourcesContext,
  read: (ctx: Context) => Promise<R>,
  changeOf: (request: R, current: ResourceData, tenantId: string) => Promise<Either<ResourcesError, SingletonChange>>,
): void => {
  const base = `/${kind.path}`;
  const scope = requireScope(kind.scope);

  router.get(base, scope, async (ctx) => {
    await answer(ctx, kind, latestSingleton(deps.runner.db, kind, addressOf(ctx, deps, kind)));
  });

  router.get(`${base}/history`, scope, async (ctx) => {
    const items = singletonHistory(deps.runner.db, kind, addressOf(ctx, deps, kind));
    const last = items[items.length - 1];
    if (!last) throw problemOf({ _tag: 'NotFound' });
    ctx.set('ETag', etagOfEnvelope(last));
    if (noneMatchHits(ctx, etagOfEnvelope(last))) {
      ctx.status = 304;
      return;
    }
    ctx.body = { items: await Promise.all(items.map(async (e) => wireEnvelope(await rendered(kind, ctx, e)))) };
  });

  router.get(`${base}/revisions/:revision`, scope, async (ctx) => {
    const a = addressOf(ctx, deps, kind);
    await answer(ctx, kind, singletonRevision(deps.runner.db, kind, a, revisionOf(ctx)));
  });

  router.put(base, scope, async (ctx) => {
    const a = addressOf(ctx, deps, kind);
    const ifMatch = requireIfMatch(ctx);
    const request = await read(ctx);
    await deps.idempotent(ctx, request, async () => {
      const target = { ifMatch, at: deps.now().toISOString() };
      const result = await updateSingleton({ store: deps.store, db: deps.runner.db }, kind, a, target, (current) => changeOf(request, current, a.tenantId), metadataOf(ctx));
      if (isLeft(result)) throw problemOf(result.left);
      await deps.runner.waitFor(result.right.position, deps.config.readYourWritesTimeoutMs);
      return resourceReply(await rendered(kind, ctx, result.right.envelope));
    });
  });
};
