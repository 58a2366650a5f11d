// Callbacks are translations of domain events. A flow's events record what happened (an outcome,
// an offer created or ended, a status change); `callbackOf` turns the ones an integrator is told
// about into the callback request a delivery records (streams/delivery.ts), by the category of the
// stream they are on. Pure: the same recorded event always gives the same request.
//
// Upgrade: events recorded before this translation embedded their request as `data.callback`.
// Such an event is translated to exactly that request, so a callback pending across an upgrade is
// delivered as it was promised (and its delivery id, derived from it, does not change).
import { isRight, left, right, type Either } from 'fp-ts/lib/Either.js';
import { credentialStatus } from '../../streams/credentialStatus.js';
import { didcommMessage } from '../../streams/didcommMessage.js';
import { CallbackRequest } from '../../streams/delivery.js';
import { BrokenContract, decodeRecorded, type Event, type StreamContract } from '../../streams/event.js';
import type { Json, RecordedEvent } from '../../streams/kernel.js';
import { offer } from '../../streams/offer.js';
import { presentation } from '../../streams/presentation.js';
import { didcommDeliveryRequest } from '../didcomm/deliveryRequest.js';
import { credentialStatusCallback } from './credentialStatusCallback.js';
import { issuanceCallback } from './issuanceCallback.js';
import { presentationCallback } from './presentationCallback.js';

type Translation = (recorded: RecordedEvent) => CallbackRequest | undefined;

const translation =
  <E extends Event>(contract: Pick<StreamContract<unknown, E>, 'category' | 'codec'>, translate: (event: E) => CallbackRequest | undefined): [string, Translation] =>
    [contract.category, (recorded) => translate(decodeRecorded(contract.codec, recorded))];

const translations = new Map<string, Translation>([
  translation(presentation, presentationCallback),
  translation(offer, issuanceCallback),
  translation(credentialStatus, credentialStatusCallback),
  // Not a callback: a DIDComm message the tenant sent, delivered by the same machinery.
  translation(didcommMessage, didcommDeliveryRequest),
]);

/** Stream categories whose events may ask for a callback. */
export const callbackSourceCategories: readonly string[] = [...translations.keys()];

/** The request an event recorded before the translation embedded, when it carries one that decodes. */
const embeddedCallback = (data: Json): CallbackRequest | undefined => {
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('callback' in data)) return undefined;
  const decoded = CallbackRequest.decode(data['callback']);
  return isRight(decoded) ? decoded.right : undefined;
};

/**
 * The callback request a recorded event asks for: undefined when it asks for none (or is on no
 * source stream), BrokenContract when it does not decode as its category's event.
 */
export const callbackOf = (recorded: RecordedEvent): Either<BrokenContract, CallbackRequest | undefined> => {
  const dash = recorded.streamId.indexOf('-');
  const translate = dash < 0 ? undefined : translations.get(recorded.streamId.slice(0, dash));
  if (translate === undefined) return right(undefined);
  const embedded = embeddedCallback(recorded.data);
  if (embedded !== undefined) return right(embedded);
  try {
    return right(translate(recorded));
  } catch (err) {
    if (err instanceof BrokenContract) return left(err);
    throw err;
  }
};
