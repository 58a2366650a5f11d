// A change of an existing resource (update annotations or labels, delete, restore, or the kind's
// own operation: publish a schema, update a draft), run by the command handler on the resource's
// stream: the kind's decider (streams/resource.ts) holds the rules, and the change is appended at
// the revision read. If-Match is checked against that revision, so of two writers holding the same
// etag exactly one appends; the other loses on the expected revision.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Event } from '../../streams/event.js';
import type { AnyChange, AnyKindCommand, Envelope, ResourceError, ResourceState, Target } from '../../streams/resource.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Position } from '../eventstore/port.js';
import type { LifecycleSequel, VersionedKind } from './kind.js';

export type UpdateError<D extends { readonly _tag: string } = ResourceError> =
  | Exclude<ResourceError | D, { readonly _tag: 'ResourceExists' }>
  /** The kind's own 409 (`lifecycle`), with its detail. */
  | { readonly _tag: 'KindConflict'; readonly detail: string };

// An update never creates, so the decider's ResourceExists cannot answer one; NotFound if it did.
const asUpdateError = <D extends { readonly _tag: string }>(error: D): UpdateError<D> =>
  error._tag === 'ResourceExists' ? { _tag: 'NotFound' } : (error as Exclude<ResourceError | D, { readonly _tag: 'ResourceExists' }>);

/** A change recorded: the resource's new revision, and where the store appended it. */
export interface Updated {
  readonly envelope: Envelope;
  readonly position: Position;
}

export const updateResource = async <E extends Event, C extends AnyKindCommand, D extends { readonly _tag: string } = ResourceError>(
  store: EventStore,
  kind: VersionedKind<E, C, D>,
  target: Target,
  change: AnyChange,
  metadata: EventMetadata,
): Promise<Either<UpdateError<D>, Updated>> => {
  const { decider } = kind;
  const streamId = kind.streamOf(target.id);
  // The route's change on the resource it addresses; the kind's decider refuses an operation it does not have.
  const command = { type: change.type, data: { ...change.data, ...target } } as C;
  const op = change.type === 'Delete' ? 'delete' : change.type === 'Restore' ? 'restore' : undefined;
  let sequel: LifecycleSequel | undefined;
  // The kind's writes on other streams follow the decision (404, 412 and the state conflicts come
  // first) and precede the append, on the envelope before the change.
  const beforeAppend = async (_events: readonly E[], state: ResourceState): Promise<Either<UpdateError<D>, void>> => {
    const current = decider.envelopeOf(state);
    if (!current || !kind.lifecycle || op === undefined) return right(undefined);
    const before = await kind.lifecycle(op, current, target.at, metadata);
    if (isLeft(before)) return left({ _tag: 'KindConflict', detail: before.left });
    sequel = before.right;
    return right(undefined);
  };
  const handled = await handleCommand(store, decider, streamId, command, { commandId: randomUUID(), metadata, beforeAppend });
  if (isLeft(handled)) {
    // Certainly not appended: the kind gives up what it wrote before. (A thrown append may have
    // been written after all, so nothing is undone then: a claim too many is safe, one too few not.)
    await sequel?.notAppended();
    const failed = handled.left;
    switch (failed.kind) {
      // Someone appended after our read: the etag the caller matched is no longer current.
      case 'store':
        return left(failed.error._tag === 'WrongExpectedRevision' ? { _tag: 'PreconditionFailed' } : { _tag: 'NotFound' });
      case 'hook':
        return left(failed.error);
      case 'domain':
        return left(asUpdateError(failed.error));
    }
  }
  await sequel?.appended();
  const envelope = decider.envelopeOf(handled.right.state);
  if (!envelope || !handled.right.position) throw new Error('an update decided without an envelope');
  return right({ envelope, position: handled.right.position });
};
