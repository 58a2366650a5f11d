// The Issuance Event (the connector specification, "Issuance Event") an offer's events are
// translated to: OFFER_CREATED when it is created, then ISSUED, FAILED or EXPIRED when it ends. It
// holds no personal data, so nothing is sealed. A status change of what was issued is an Issuance
// Event too (credentialStatusCallback.ts).
import type { OfferEvent, OfferStatus } from '../../streams/offer.js';
import type { CallbackRequest } from '../../streams/delivery.js';

/**
 * The Issuance Event `{eventId, status, offerId, errorDetails?}` of an event about `offer`; `eventId`
 * and `status` identify its delivery.
 */
export const issuanceEvent = (
  offer: { readonly tenantId: string; readonly offerId: string },
  eventId: string,
  status: string,
  errorDetails?: string,
): CallbackRequest => ({
  tenantId: offer.tenantId,
  eventId,
  status,
  body: { eventId, status, offerId: offer.offerId, ...(errorDetails === undefined ? {} : { errorDetails }) },
});

const ofOffer = (offer: { readonly tenantId: string; readonly offerId: string }, status: OfferStatus, errorDetails?: string): CallbackRequest =>
  issuanceEvent(offer, offer.offerId, status, errorDetails);

/** The callback an offer event asks for; undefined for the wallet's steps and the purge. */
export const issuanceCallback = (event: OfferEvent): CallbackRequest | undefined => {
  switch (event.type) {
    case 'OfferCreated':
      return ofOffer(event.data, 'OFFER_CREATED');
    case 'CredentialIssued':
      return ofOffer(event.data, 'ISSUED');
    case 'OfferFailed':
      return ofOffer(event.data, 'FAILED', event.data.errorDetails);
    case 'OfferExpired':
      return ofOffer(event.data, 'EXPIRED');
    default:
      return undefined;
  }
};
