// A DIDComm message is delivered by the callback machinery (src/callbacks/): the recorder turns
// each DidcommMessageSent that asks for a transport into a delivery request naming the message,
// with its own delivery id, so its attempts, retries, abandonment and re-sends are those of a
// callback and `ops deliveries` lists and re-sends it. The request holds no personal data: the
// recipient stays sealed in the message's stream and is opened at each attempt.
import { deliveryIdOf, type CallbackRequest } from '../../streams/delivery.js';
import type { DidcommMessageEvent } from '../../streams/didcommMessage.js';

/** The `status` of a DIDComm message's delivery, beside the callbacks' event statuses. */
export const DIDCOMM_DELIVERY_STATUS = 'DIDCOMM_MESSAGE';

export const didcommDeliveryId = (tenantId: string, messageId: string): string => deliveryIdOf(tenantId, messageId, DIDCOMM_DELIVERY_STATUS);

/** The delivery a message's event asks for: one for a message sent with a transport, none otherwise. */
export const didcommDeliveryRequest = (event: DidcommMessageEvent): CallbackRequest | undefined => {
  if (event.type !== 'DidcommMessageSent' || event.data.transport === undefined) return undefined;
  const { tenantId, messageId } = event.data;
  return { tenantId, eventId: messageId, status: DIDCOMM_DELIVERY_STATUS, body: {}, didcomm: { messageId } };
};
