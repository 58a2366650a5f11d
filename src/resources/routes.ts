// The routes every kind has: latest, history, revision, annotations, labels, delete, restore.
// Reads come from the read models (projections/resources.ts); writes are decided on the stream.
import Router from '@koa/router';
import type { Context } from 'koa';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findHistory, findLatest, findRevision, resourcesProjection, type ResourceAddress } from '../../projections/resources.js';
import { decodeRecorded, type Event } from '../../streams/event.js';
import { MAX_REVISION, StringMap, type AnyChange, type AnyKindCommand, type Envelope, type ResourceError } from '../../streams/resource.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { Uuid } from '../http/codecs.js';
import { requestIdOf } from '../log.js';
import { HttpError, invalidRequest, serviceUnavailable } from '../http/problem.js';
import { isQuarantined } from '../readside/quarantine.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { noneMatchHits, requireIfMatch } from '../http/conditional.js';
import { etagOfEnvelope, resourceReply, wireEnvelope } from './envelope.js';
import type { Reply } from './reply.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { apiLineOf } from './oasVersion.js';
import type { KindRefusal, VersionedKind } from './kind.js';
import { searcher } from './search.js';
import { recordCreation, type Recorded } from './create.js';
import { problemOf } from './problems.js';
import { updateResource } from './update.js';

/** The addressed resource of the caller's tenant; a malformed id is 400. */
export const addressOf = (ctx: Context, kind: { readonly name: string }): ResourceAddress => {
  const id = String(ctx.params['id'] ?? '');
  if (!Uuid.is(id)) throw new HttpError(invalidRequest('The id is not a UUID.', [{ location: 'path.id', message: 'expected a UUID', value: id }]));
  return { tenantId: principalOf(ctx).tenantId, kind: kind.name, id: id.toLowerCase() };
};

/** The tenant whose resource the stream holds, from its first event; undefined if that cannot be read. */
const ownerOf = async <E extends Event, C extends AnyKindCommand, D extends KindRefusal = ResourceError>(store: EventStore, kind: VersionedKind<E, C, D>, stream: string): Promise<string | undefined> => {
  const read = await store.readStream(stream, { maxCount: 1 });
  const first = read._tag === 'Found' ? read.events[0] : undefined;
  try {
    return first && kind.decider.envelopeOf(kind.decider.evolve(kind.decider.initialState, decodeRecorded(kind.decider.codec, first)))?.tenantId;
  } catch {
    return undefined;
  }
};

/**
 * The addressed resource, to be read from the read models. One of whose events the resources
 * projection set aside (src/readside/quarantine.ts) has a stale or missing view there: its tenant gets a
 * 503 instead of that view, another tenant the 404 of any id not its own. The owner comes from
 * the store, since the read model may never have recorded the resource.
 */
export const readableAddressOf = async <E extends Event, C extends AnyKindCommand, D extends KindRefusal = ResourceError>(
  ctx: Context,
  deps: Pick<ResourcesContext, 'runner' | 'store'>,
  kind: VersionedKind<E, C, D>,
): Promise<ResourceAddress> => {
  const address = addressOf(ctx, kind);
  const stream = kind.streamOf(address.id);
  if (isQuarantined(deps.runner.db, resourcesProjection.name, stream) && (await ownerOf(deps.store, kind, stream)) === address.tenantId) {
    throw new HttpError(
      serviceUnavailable(
        'An event of this resource could not be applied to the read models; it cannot be read until an operator resolves it.',
        '/problems/resource-unavailable',
        'Resource unavailable',
      ),
    );
  }
  return address;
};

export const revisionOf = (ctx: Context): number => {
  const text = String(ctx.params['revision'] ?? '');
  const revision = /^\d{1,6}$/.test(text) ? Number(text) : 0;
  if (revision < 1 || revision > MAX_REVISION) {
    throw new HttpError(invalidRequest('The revision is not an integer 1-999999.', [{ location: 'path.revision', message: 'expected an integer 1-999999', value: text }]));
  }
  return revision;
};

const missing = (): HttpError => problemOf({ _tag: 'NotFound' });

/** 304 when If-None-Match names `etag`, else the body with its ETag. */
const conditionalRead = async (ctx: Context, etag: string, body: () => Promise<unknown>): Promise<void> => {
  ctx.set('ETag', etag);
  if (noneMatchHits(ctx, etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = await body();
};

/** The envelope as the kind shows it to this request. */
export const rendered = async <E extends Event, C extends AnyKindCommand, D extends KindRefusal = ResourceError>(kind: VersionedKind<E, C, D>, ctx: Context, envelope: Envelope): Promise<Envelope> =>
  kind.render ? kind.render(envelope, apiLineOf(ctx)) : envelope;

const AnnotationsBody = t.type({ annotations: StringMap });
const LabelsBody = t.type({ labels: StringMap });

export const metadataOf = (ctx: Context): EventMetadata => ({ actor: `apikey:${principalOf(ctx).keyId}`, requestId: requestIdOf(ctx) });

/**
 * A conditional (If-Match), idempotent change of one resource, answered with its new revision.
 * `read` decodes the request (what Idempotency-Key compares); `toChange` turns it into the
 * operation when the write runs (a draft merges with its current data there).
 */
export const updateRoute =
  <E extends Event, C extends AnyKindCommand, R extends Json, D extends KindRefusal = ResourceError>(
    kind: VersionedKind<E, C, D>,
    deps: ResourcesContext,
    read: (ctx: Context) => Promise<R>,
    toChange: (request: R, ctx: Context) => Promise<AnyChange> = async (request) => request as unknown as AnyChange,
  ) =>
  async (ctx: Context): Promise<void> => {
    const address = addressOf(ctx, kind);
    const ifMatch = requireIfMatch(ctx);
    const request = await read(ctx);
    await deps.idempotent(ctx, request, async () => {
      const result = await updateResource(
        deps.store,
        kind,
        { tenantId: address.tenantId, id: address.id, ifMatch, at: deps.now().toISOString() },
        await toChange(request, ctx),
        metadataOf(ctx),
      );
      if (isLeft(result)) throw problemOf(result.left);
      await deps.runner.waitFor(result.right.position, deps.config.readYourWritesTimeoutMs);
      return resourceReply(await rendered(kind, ctx, result.right.envelope));
    });
  };

/**
 * Records the first event of a new resource (src/resources/create.ts) and answers it: 201, as the
 * kind shows it, ETag, Location.
 */
export const createResource = async <E extends Event, C extends AnyKindCommand, D extends KindRefusal = ResourceError>(
  deps: ResourcesContext,
  kind: VersionedKind<E, C, D>,
  ctx: Context,
  id: string,
  create: Extract<C, { readonly type: string; readonly data: { readonly at: string } }>,
  onNotAppended?: () => Promise<void>,
): Promise<Reply> => {
  const created = await recordCreation(deps.store, kind, id, create, metadataOf(ctx), onNotAppended);
  return answerCreated(deps, kind, ctx, created);
};

/** A new resource's answer once its first event is recorded: 201, as the kind shows it, ETag, Location. */
export const answerCreated = async <E extends Event, C extends AnyKindCommand, D extends KindRefusal>(deps: ResourcesContext, kind: VersionedKind<E, C, D>, ctx: Context, created: Recorded): Promise<Reply> => {
  await deps.runner.waitFor(created.position, deps.config.readYourWritesTimeoutMs);
  return resourceReply(await rendered(kind, ctx, created.envelope), 201, { Location: `/${kind.path}/${created.envelope.id}` });
};

/** Mounts the shared routes of `kind` on `router` (which the kind's own routes share). */
export const versionedRoutes = <E extends Event, C extends AnyKindCommand, D extends KindRefusal = ResourceError>(router: Router, kind: VersionedKind<E, C, D>, deps: ResourcesContext): void => {
  const base = `/${kind.path}`;
  const scope = requireScope(kind.scope);
  const db = () => deps.runner.db;
  const search = searcher(kind.name, kind.search, { render: (ctx, envelope) => rendered(kind, ctx, envelope) });
  router.post(`${base}/search`, scope, (ctx) => search(ctx, db()));

  router.get(`${base}/:id`, scope, async (ctx) => {
    const found = findLatest(db(), await readableAddressOf(ctx, deps, kind));
    if (!found) throw missing();
    await conditionalRead(ctx, etagOfEnvelope(found), async () => wireEnvelope(await rendered(kind, ctx, found)));
  });

  router.get(`${base}/:id/history`, scope, async (ctx) => {
    const items = findHistory(db(), await readableAddressOf(ctx, deps, kind));
    const last = items[items.length - 1];
    if (!last) throw missing();
    await conditionalRead(ctx, etagOfEnvelope(last), async () => ({
      items: await Promise.all(items.map(async (e) => wireEnvelope(await rendered(kind, ctx, e)))),
    }));
  });

  router.get(`${base}/:id/revisions/:revision`, scope, async (ctx) => {
    const found = findRevision(db(), await readableAddressOf(ctx, deps, kind), revisionOf(ctx));
    if (!found) throw missing();
    await conditionalRead(ctx, etagOfEnvelope(found), async () => wireEnvelope(await rendered(kind, ctx, found)));
  });

  const write = (change: (ctx: Context) => Promise<AnyChange>) => updateRoute(kind, deps, change);

  router.put(`${base}/:id/annotations`, scope, write(async (ctx) => ({ type: 'UpdateAnnotations', data: decode(AnnotationsBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body') })));
  router.put(`${base}/:id/labels`, scope, write(async (ctx) => ({ type: 'UpdateLabels', data: decode(LabelsBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body') })));
  router.delete(`${base}/:id`, scope, write(async () => ({ type: 'Delete', data: {} })));
  router.post(`${base}/:id/restore`, scope, write(async () => ({ type: 'Restore', data: {} })));
};

