// The routes of a tenant's singleton resource (`/verifier`, `/settings`; streams/singleton.ts):
// `GET /{path}`, `PUT /{path}` (If-Match: it exists from the tenant's creation, so every PUT
// changes a revision the caller has seen), `GET /{path}/history`, `GET /{path}/revisions/{n}`.
// Before its first change its revision 1 is implicit: made from the tenant's creation time, as
// the first PUT records it.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findHistory, findLatest, findRevision, type ResourceAddress } from '../../projections/resources.js';
import { findTenant } from '../../projections/tenants.js';
import type { Event } from '../../streams/event.js';
import type { AnyChange, AnyKindCommand, Envelope, ResourceData } from '../../streams/resource.js';
import { singletonId } from '../../streams/singleton.js';
import type { Json } from '../eventstore/port.js';
import { noneMatchHits, requireIfMatch } from '../http/conditional.js';
import { HttpError, notFound } from '../http/problem.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import type { ResourcesContext } from './context.js';
import { etagOfEnvelope, resourceReply, wireEnvelope } from './envelope.js';
import type { VersionedKind } from './kind.js';
import { problemOf } from './problems.js';
import { metadataOf, rendered, revisionOf } from './routes.js';
import { updateResource } from './update.js';

export interface SingletonKind<E extends Event, C extends AnyKindCommand> extends VersionedKind<E, C> {
  /** Revision 1, nothing set: the tenant's, at its creation. */
  readonly initial: (tenantId: string, id: string, tenantCreatedAt: string) => Envelope | undefined;
}

/** The caller's singleton of `kind`, and when its tenant was created. */
const singletonOf = (ctx: Context, deps: ResourcesContext, kind: { readonly name: string }): ResourceAddress & { readonly tenantCreatedAt: string } => {
  const tenantId = principalOf(ctx).tenantId;
  const tenant = findTenant(deps.runner.db, tenantId);
  // An authenticated caller's tenant exists; the read model may lag its creation by a moment.
  if (!tenant) throw new HttpError(notFound('The tenant is not known yet.'));
  return { tenantId, kind: kind.name, id: singletonId(kind.name, tenantId), tenantCreatedAt: tenant.created_at };
};

/** The revisions of the singleton, oldest first: the recorded ones, or the implicit revision 1. */
const historyOf = <E extends Event, C extends AnyKindCommand>(deps: ResourcesContext, kind: SingletonKind<E, C>, a: ReturnType<typeof singletonOf>): Envelope[] => {
  const recorded = findHistory(deps.runner.db, a);
  if (recorded.length > 0) return recorded;
  const initial = kind.initial(a.tenantId, a.id, a.tenantCreatedAt);
  return initial ? [initial] : [];
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
 * compares); `toChange` turns it, with the data of the revision being changed, into the kind's
 * operation.
 */
export const singletonRoutes = <E extends Event, C extends AnyKindCommand, R extends Json>(
  router: Router,
  kind: SingletonKind<E, C>,
  deps: ResourcesContext,
  read: (ctx: Context) => Promise<R>,
  toChange: (request: R, current: ResourceData, tenantId: string) => Promise<{ readonly type: string; readonly data: { readonly [member: string]: unknown } }>,
): void => {
  const base = `/${kind.path}`;
  const scope = requireScope(kind.scope);

  router.get(base, scope, async (ctx) => {
    const a = singletonOf(ctx, deps, kind);
    await answer(ctx, kind, findLatest(deps.runner.db, a) ?? kind.initial(a.tenantId, a.id, a.tenantCreatedAt));
  });

  router.get(`${base}/history`, scope, async (ctx) => {
    const items = historyOf(deps, kind, singletonOf(ctx, deps, kind));
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
    const a = singletonOf(ctx, deps, kind);
    const revision = revisionOf(ctx);
    await answer(ctx, kind, findRevision(deps.runner.db, a, revision) ?? (revision === 1 && !findLatest(deps.runner.db, a) ? kind.initial(a.tenantId, a.id, a.tenantCreatedAt) : undefined));
  });

  router.put(base, scope, async (ctx) => {
    const a = singletonOf(ctx, deps, kind);
    const ifMatch = requireIfMatch(ctx);
    const request = await read(ctx);
    await deps.idempotent(ctx, request, async () => {
      // The change is made on the revision If-Match names: the read models' latest (the decider
      // checks again on the stream; a read model behind it answers 412, never a change on stale data).
      const current = findLatest(deps.runner.db, a) ?? kind.initial(a.tenantId, a.id, a.tenantCreatedAt);
      if (!current || !ifMatch(etagOfEnvelope(current))) throw problemOf({ _tag: 'PreconditionFailed' });
      const change = await toChange(request, current.data, a.tenantId);
      const result = await updateResource(
        deps.store,
        kind,
        { tenantId: a.tenantId, id: a.id, ifMatch, at: deps.now().toISOString() },
        // The kind's own operation on its singleton names the tenant's creation (streams/singleton.ts).
        { type: change.type, data: { ...change.data, tenantCreatedAt: a.tenantCreatedAt } } as AnyChange,
        metadataOf(ctx),
      );
      if (isLeft(result)) throw problemOf(result.left);
      await deps.runner.waitFor(result.right.position, deps.config.readYourWritesTimeoutMs);
      return resourceReply(await rendered(kind, ctx, result.right.envelope));
    });
  });
};
