// The end of an offer: exactly one terminal event (ISSUED, FAILED or EXPIRED), then its data key
// destroyed and ClaimsPurged recorded. The terminal event is decided on the state read and
// appended at that revision, so of a wallet and the expiry timer only one can end an offer.
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { offer, offerStream } from '../../streams/offer.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { IssuanceContext } from './context.js';

/** Destroys the offer's data key and records it; idempotent, safe to race. */
export const purgeClaims = async (issuance: Pick<IssuanceContext, 'store' | 'dataKeys' | 'now'>, offerId: string, metadata: EventMetadata): Promise<void> => {
  await issuance.dataKeys.destroy(offerId);
  // A concurrent purge may win the append; either way the key is gone and recorded once.
  await handleCommand(issuance.store, offer, offerStream(offerId), { type: 'PurgeClaims', data: { offerId, at: issuance.now().toISOString() } }, { commandId: randomUUID(), metadata });
};

/** Appends OfferExpired when the offer is still open and past its time-to-live; true if it did. */
export const expireOffer = async (issuance: Pick<IssuanceContext, 'store' | 'dataKeys' | 'now'>, offerId: string): Promise<boolean> => {
  const metadata = { actor: 'scheduler' };
  const expire = { type: 'ExpireOffer', data: { offerId, at: issuance.now().toISOString() } } as const;
  const result = await handleCommand(issuance.store, offer, offerStream(offerId), expire, { commandId: randomUUID(), metadata });
  // A lost race means the wallet (or another instance) moved the offer first: nothing to do.
  if (isLeft(result) || result.right.events.length === 0) return false;
  await purgeClaims(issuance, offerId, metadata);
  return true;
};
