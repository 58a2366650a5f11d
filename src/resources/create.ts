// Creating a resource of a kind (the use case; each kind's route builds its creation command): the
// kind's first event, appended on the new id's stream, where the store lets one creation win.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Event } from '../../streams/event.js';
import type { AnyKindCommand, Envelope, ResourceError, ResourceState } from '../../streams/resource.js';
import type { KindRefusal } from './kind.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Position } from '../eventstore/port.js';
import type { VersionedKind } from './kind.js';

export interface Recorded {
  readonly envelope: Envelope;
  readonly position: Position;
}

/** The first event of resource `id`, appended only where its stream does not exist yet. */
const appendFirst = <E extends Event, C extends AnyKindCommand, D extends KindRefusal>(
  store: EventStore,
  kind: VersionedKind<E, C, D>,
  id: string,
  create: Extract<C, { readonly type: string; readonly data: { readonly at: string } }>,
  metadata: EventMetadata,
  commandId: string,
) =>
  // A new id's stream: nothing to read, and the store lets one creation win.
  handleCommand(store, kind.decider, kind.streamOf(id), create, {
    commandId,
    metadata,
    loaded: { state: kind.decider.initialState, expectedRevision: 'no_stream' },
  });

const recorded = <E extends Event, C extends AnyKindCommand, D extends KindRefusal>(kind: VersionedKind<E, C, D>, state: ResourceState, position: Position | undefined): Recorded => {
  const envelope = kind.decider.envelopeOf(state);
  if (!envelope || !position) throw new Error(`${kind.name} has no envelope after its first event`);
  return { envelope, position };
};

/**
 * Records `create` as the first event of resource `id`. Its ids are fresh UUIDs, so the one
 * refusal (the stream exists) is a broken invariant and throws. `onNotAppended` runs when the
 * store refused the event (it was certainly not written), before that: a kind gives up there what
 * it wrote before (a file's content claim).
 */
export const recordCreation = async <E extends Event, C extends AnyKindCommand, D extends KindRefusal = ResourceError>(
  store: EventStore,
  kind: VersionedKind<E, C, D>,
  id: string,
  create: Extract<C, { readonly type: string; readonly data: { readonly at: string } }>,
  metadata: EventMetadata,
  onNotAppended?: () => Promise<void>,
): Promise<Recorded> => {
  const handled = await appendFirst(store, kind, id, create, metadata, id);
  if (isLeft(handled)) {
    await onNotAppended?.();
    throw new Error(`${kind.name} not created: ${handled.left.error._tag}`);
  }
  return recorded(kind, handled.right.state, handled.right.position);
};

/**
 * Records `create` as the first event of resource `id` where the request names the id (a
 * credential configuration's id derives from the tenant and the configuration's own id): a
 * creation of an id whose stream exists is refused, even one racing it, never taken as a retry of
 * the first (retries are what Idempotency-Key is for).
 */
export const recordNamedCreation = async <E extends Event, C extends AnyKindCommand>(
  store: EventStore,
  kind: VersionedKind<E, C>,
  id: string,
  create: Extract<C, { readonly type: string; readonly data: { readonly at: string } }>,
  metadata: EventMetadata,
): Promise<Either<{ readonly _tag: 'ResourceExists' }, Recorded>> => {
  const handled = await appendFirst(store, kind, id, create, metadata, randomUUID());
  if (isLeft(handled)) {
    if (handled.left.kind === 'store' && handled.left.error._tag === 'WrongExpectedRevision') return left({ _tag: 'ResourceExists' });
    throw new Error(`${kind.name} not created: ${handled.left.error._tag}`);
  }
  return right(recorded(kind, handled.right.state, handled.right.position));
};
