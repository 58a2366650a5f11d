// An operator's re-send of an abandoned (or undeliverable) delivery: one more attempt of the same
// delivery, so the same `webhook-id`, due at once. Refused once the sealed data is gone: a
// verification callback cannot be re-sent without its credentials.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { delivery, deliveryStream, type DeliveryEvent } from '../../streams/delivery.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleInlineDecision, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore } from '../eventstore/port.js';

export type ResendError =
  | AppendError
  | { readonly _tag: 'DeliveryNotFound'; readonly deliveryId: string }
  | { readonly _tag: 'NotAbandoned'; readonly deliveryId: string; readonly status: string }
  | { readonly _tag: 'DataGone'; readonly deliveryId: string };

export const resendDelivery = async (
  store: EventStore,
  dataKeys: DataKeys,
  deliveryId: string,
  metadata: EventMetadata,
): Promise<Either<ResendError, { readonly deliveryId: string }>> => {
  // Whether the data still exists is I/O; it is checked before the decision, which re-checks the
  // recorded destruction at the revision it appends at.
  const loaded = await loadStream(store, delivery, deliveryStream(deliveryId));
  if (isLeft(loaded)) return loaded;
  const sealed = loaded.right.state.status === 'none' ? undefined : loaded.right.state.callback.sealed;
  const dataExists = !sealed || (await dataKeys.find(sealed.ownerId)) !== undefined;
  const result = await handleInlineDecision(
    store,
    delivery,
    deliveryStream(deliveryId),
    (state): Either<ResendError, DeliveryEvent[]> => {
      if (state.status === 'none') return left({ _tag: 'DeliveryNotFound', deliveryId });
      if (state.status !== 'abandoned' && state.status !== 'undeliverable') return left({ _tag: 'NotAbandoned', deliveryId, status: state.status });
      if (state.dataDestroyed || !dataExists) return left({ _tag: 'DataGone', deliveryId });
      return right([{ type: 'DeliveryResendRequested', data: { deliveryId, requestedAt: new Date().toISOString() } }]);
    },
    metadata,
  );
  return isLeft(result) ? result : right({ deliveryId });
};
