// The Presented Credentials Event (the connector specification, "Presented Credentials Event") a
// presentation's terminal event is translated to, with the specification's field presence rules:
// - `responseCode`: same-device only, for FULFILLED and trust-enforcement VERIFICATION_FAILED
//   (the terminal event records null otherwise);
// - `credentials` / `credentialsRaw`: FULFILLED only, and only sealed: the request carries them
//   sealed with the session's data key (owner id = state), opened just before sending;
// - `errorDetails`: REJECTED (the wallet's error code), PROCESSING_ERROR and VERIFICATION_FAILED.
import { statusOf, type PresentationEvent, type PresentationTerminalEvent } from '../../streams/presentation.js';
import { purposes } from '../../streams/presentationSealed.js';
import type { CallbackRequest } from '../../streams/delivery.js';

const responseCodeOf = (responseCode: string | null): Record<string, string> => (responseCode === null ? {} : { responseCode });

const request = (event: PresentationTerminalEvent, fields: Record<string, string>, sealed?: CallbackRequest['sealed']): CallbackRequest => {
  const { state, tenantId } = event.data;
  const status = statusOf(event);
  return { tenantId, eventId: state, status, body: { status, state, ...fields }, ...(sealed ? { sealed } : {}) };
};

/** The callback a presentation event asks for; undefined for the request and its fetches. */
export const presentationCallback = (event: PresentationEvent): CallbackRequest | undefined => {
  switch (event.type) {
    case 'PresentationRequested':
    case 'PresentationRequestFetched':
      return undefined;
    case 'PresentationFulfilled': {
      const { state, responseCode, presentedCredentials } = event.data;
      return request(event, responseCodeOf(responseCode), { ownerId: state, purpose: purposes.presentedCredentials.name, value: presentedCredentials });
    }
    case 'PresentationVerificationFailed':
      return request(event, { errorDetails: event.data.errorDetails, ...responseCodeOf(event.data.responseCode) });
    case 'PresentationRejected':
      return request(event, { errorDetails: event.data.error });
    case 'PresentationProcessingFailed':
      return request(event, { errorDetails: event.data.errorDetails });
    case 'PresentationExpired':
      return request(event, {});
  }
};
