// The offer time-to-live as a command: each tick finds open offers past their expiry in the read
// model and appends OfferExpired to each at the revision it reads, so a wallet finishing at the
// same moment and the timer cannot both win. It also finishes purges an ended flow left undone
// (a crash between an offer's end and the destruction of its data key).
import { offersPastExpiry, offersToPurge } from '../../projections/offers.js';
import { logRef } from '../../streams/kernel.js';
import { startPeriodic, type Periodic } from '../periodic.js';
import type { Config } from '../config/config.js';
import type { IssuanceContext } from './context.js';
import { expireOffer, purgeClaims } from './offerEnd.js';

const BATCH = 100;
/** An ended offer's own request purges it at once; only older leftovers are the sweeper's. */
const PURGE_GRACE_MS = 30_000;

/** What the expiry uses of the issuance feature. */
export type ExpiryPorts = Pick<IssuanceContext, 'store' | 'dataKeys' | 'runner' | 'log' | 'now'> & { readonly config: Pick<Config, 'offerExpiryIntervalMs'> };

export const startOfferExpiry = (issuance: ExpiryPorts): Periodic =>
  startPeriodic(
    'offer expiry',
    issuance.config.offerExpiryIntervalMs,
    async () => {
      const now = issuance.now();
      for (const offerId of offersPastExpiry(issuance.runner.db, now.toISOString(), BATCH)) {
        if (await expireOffer(issuance, offerId)) issuance.log.info('offer expired', { offerRef: logRef(offerId) });
      }
      const before = new Date(now.getTime() - PURGE_GRACE_MS).toISOString();
      for (const offerId of offersToPurge(issuance.runner.db, before, BATCH)) {
        await purgeClaims(issuance, offerId, { actor: 'scheduler' });
      }
    },
    issuance.log,
  );
