// The changes every kind shares (annotations, labels, delete, restore), decided on the resource's
// stream and appended at the revision read. If-Match is checked against that revision, so of two
// writers holding the same etag exactly one appends; the other loses on the expected revision.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Event } from '../../streams/event.js';
import { MAX_REVISION, type Envelope, type ResourceData, type StringMap } from '../../streams/resource.js';
import { appendEvents, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Position } from '../eventstore/port.js';
import { etagOfEnvelope } from './envelope.js';
import type { LifecycleSequel, VersionedKind } from './kind.js';

export type Update =
  | { readonly op: 'annotations'; readonly annotations: StringMap }
  | { readonly op: 'labels'; readonly labels: StringMap }
  | { readonly op: 'delete' }
  | { readonly op: 'restore' }
  /** A kind-specific change of `data` (publishing a schema). */
  | { readonly op: 'data'; readonly data: ResourceData };

export type UpdateError =
  | { readonly _tag: 'NotFound' }
  | { readonly _tag: 'PreconditionFailed' }
  | { readonly _tag: 'Conflict'; readonly reason: 'deleted' | 'not_deleted' | 'revision_limit' | 'frozen' }
  /** The kind's own 409 (`lifecycle`), with its detail. */
  | { readonly _tag: 'KindConflict'; readonly detail: string };

export interface UpdateRequest {
  readonly tenantId: string;
  readonly id: string;
  readonly ifMatch: (currentEtag: string) => boolean;
  readonly update: Update;
  readonly at: string;
  readonly frozen?: (envelope: Envelope) => boolean;
}

/**
 * The pure decision. Order matters: an unknown (or another tenant's) resource is 404 whatever the
 * etag; a stale etag is 412 before any state conflict is reported.
 */
export const decideUpdate = (current: Envelope | undefined, request: UpdateRequest): Either<UpdateError, Update> => {
  if (!current || current.tenantId !== request.tenantId) return left({ _tag: 'NotFound' });
  if (!request.ifMatch(etagOfEnvelope(current))) return left({ _tag: 'PreconditionFailed' });
  if (request.frozen?.(current)) return left({ _tag: 'Conflict', reason: 'frozen' });
  const deleted = current.deletedAt !== null;
  if (request.update.op === 'restore' ? !deleted : deleted) {
    return left({ _tag: 'Conflict', reason: request.update.op === 'restore' ? 'not_deleted' : 'deleted' });
  }
  if (current.revision >= MAX_REVISION) return left({ _tag: 'Conflict', reason: 'revision_limit' });
  return right(request.update);
};

const eventFor = <State, E extends Event>(kind: VersionedKind<State, E>, id: string, update: Update, at: string): E => {
  switch (update.op) {
    case 'annotations':
      return kind.events.annotations(id, update.annotations, at);
    case 'labels':
      return kind.events.labels(id, update.labels, at);
    case 'delete':
      return kind.events.deleted(id, at);
    case 'restore':
      return kind.events.restored(id, at);
    case 'data':
      if (!kind.events.data) throw new Error(`kind ${kind.name} has no data changes`);
      return kind.events.data(id, update.data, at);
  }
};

export const updateResource = async <State, E extends Event>(
  store: EventStore,
  kind: VersionedKind<State, E>,
  request: UpdateRequest,
  metadata: EventMetadata,
): Promise<Either<UpdateError, { readonly envelope: Envelope; readonly position: Position }>> => {
  const streamId = kind.streamOf(request.id);
  const loaded = await loadStream(store, kind.contract, streamId);
  if (isLeft(loaded)) return left({ _tag: 'NotFound' });
  const { state, expectedRevision } = loaded.right;
  const current = kind.envelopeOf(state);
  const decided = decideUpdate(current, { ...request, ...(kind.frozen ? { frozen: kind.frozen } : {}) });
  if (isLeft(decided)) return decided;
  const event = eventFor(kind, request.id, decided.right, request.at);
  const envelope = kind.envelopeOf(kind.contract.evolve(state, event));
  if (!current || !envelope) throw new Error('an update decided without an envelope');
  const op = decided.right.op;
  let sequel: LifecycleSequel | undefined;
  if ((op === 'delete' || op === 'restore') && kind.lifecycle) {
    const before = await kind.lifecycle(op, current, request.at, metadata);
    if (isLeft(before)) return left({ _tag: 'KindConflict', detail: before.left });
    sequel = before.right;
  }
  const appended = await appendEvents(store, streamId, [event], expectedRevision, metadata);
  if (isLeft(appended)) {
    // Certainly not appended: the kind gives up what it wrote before. (A thrown append may have
    // been written after all, so nothing is undone then: a claim too many is safe, one too few not.)
    await sequel?.notAppended();
    // Someone appended after our read: the etag the caller matched is no longer current.
    return left(appended.left._tag === 'WrongExpectedRevision' ? { _tag: 'PreconditionFailed' } : { _tag: 'NotFound' });
  }
  await sequel?.appended();
  return right({ envelope, position: appended.right.position });
};
