// The expiry scheduler: sessions past their expiry with no answer end as EXPIRED. The read model
// only nominates candidates; each expiry is a command decided on the stream and appended at the
// revision read, so a wallet answering at the same moment and the timer cannot both win.
import { findExpiredPresentations } from '../../projections/presentations.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import type { EventStore } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { logRef } from '../../streams/kernel.js';
import { startPeriodic, type Periodic } from '../periodic.js';
import type { Sqlite } from '../sqlite/connection.js';
import { expirePresentation } from './sessionEnd.js';

/** Sessions expired per run; the next run takes the rest. */
const BATCH = 100;

export const startPresentationExpiry = (
  deps: { readonly store: EventStore; readonly dataKeys: DataKeys; readonly readModels: Sqlite; readonly log: Logger },
  intervalMs: number,
): Periodic =>
  startPeriodic(
    'presentation expiry',
    intervalMs,
    async () => {
      const now = new Date();
      for (const state of findExpiredPresentations(deps.readModels, now.getTime(), BATCH)) {
        if (await expirePresentation(deps, state, { actor: 'scheduler' }, now)) deps.log.info('presentation expired', { stateRef: logRef(state) });
      }
    },
    deps.log,
  );
