// An operator's re-send of an abandoned (or undeliverable) delivery: one more attempt of the same
// delivery, so the same `webhook-id`, due at once. Refused once the sealed data is gone: a
// verification callback cannot be re-sent without its credentials.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { delivery, deliveryStream, type Command, type DomainError } from '../../streams/delivery.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, loadStream, type CommandError, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';

/** Why nothing was re-sent, as the command handler tags it: the decider refused, or the store. */
export type ResendError = CommandError<DomainError>;

export const resendDelivery = async (
  store: EventStore,
  dataKeys: DataKeys,
  deliveryId: string,
  metadata: EventMetadata,
): Promise<Either<ResendError, { readonly deliveryId: string }>> => {
  // Whether the data still exists is I/O; it is checked before the decision, which re-checks the
  // recorded destruction at the revision it appends at.
  const loaded = await loadStream(store, delivery, deliveryStream(deliveryId));
  if (isLeft(loaded)) return left({ kind: 'store', error: loaded.left });
  const sealed = loaded.right.state.status === 'none' ? undefined : loaded.right.state.callback.sealed;
  const dataExists = !sealed || (await dataKeys.find(sealed.ownerId)) !== undefined;
  const command: Command = { type: 'RequestResend', data: { deliveryId, dataExists, at: new Date().toISOString() } };
  const result = await handleCommand(store, delivery, deliveryStream(deliveryId), command, { commandId: randomUUID(), metadata, loaded: loaded.right });
  if (isLeft(result)) return left(result.left);
  return right({ deliveryId });
};
