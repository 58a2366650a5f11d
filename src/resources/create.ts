// Creating a resource of a kind (the use case; each kind's route builds its creation command): the
// kind's first event, appended on the new id's stream, where the store lets one creation win.
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Event } from '../../streams/event.js';
import type { AnyKindCommand, Envelope, ResourceError } from '../../streams/resource.js';
import type { KindRefusal } from './problems.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Position } from '../eventstore/port.js';
import type { VersionedKind } from './kind.js';

export interface Recorded {
  readonly envelope: Envelope;
  readonly position: Position;
}

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
  // A new id's stream: nothing to read, and the store lets one creation win.
  const handled = await handleCommand(store, kind.decider, kind.streamOf(id), create, {
    commandId: id,
    metadata,
    loaded: { state: kind.decider.initialState, expectedRevision: 'no_stream' },
  });
  if (isLeft(handled)) {
    await onNotAppended?.();
    throw new Error(`${kind.name} not created: ${handled.left.error._tag}`);
  }
  const envelope = kind.decider.envelopeOf(handled.right.state);
  if (!envelope || !handled.right.position) throw new Error(`${kind.name} has no envelope after its first event`);
  return { envelope, position: handled.right.position };
};
