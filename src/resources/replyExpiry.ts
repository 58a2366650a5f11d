// The end of an idempotent reply's window as a command: each tick finds the recorded replies
// whose Idempotency-Key has expired in the read model (projections/idempotentReplies.ts) and
// shreds each (destroys its data key, records IdempotentReplyShredded). The work list lives in
// the event store, not in a timer, so replies that expired while no instance ran are shredded at
// the next start; instances racing on one reply destroy one key and record it once.
import { repliesPastExpiry, type ExpiredReply } from '../../projections/idempotentReplies.js';
import { startPeriodic, type Periodic } from '../periodic.js';
import type { ResourcesContext } from './context.js';
import { shredReply } from './idempotency.js';

const PAGE = 100;

/** Shreds every reply expired at this moment. */
export const shredExpiredReplies = async (deps: Pick<ResourcesContext, 'now' | 'runner' | 'store' | 'dataKeys'>): Promise<void> => {
  const now = deps.now();
  let page: ExpiredReply[];
  let after: ExpiredReply | undefined;
  // Each page starts after the last: the loop ends even before the read model shows the shreds.
  do {
    page = repliesPastExpiry(deps.runner.db, now.toISOString(), after, PAGE);
    for (const reply of page) await shredReply(deps, reply.streamId, reply.claimId, now);
    after = page[page.length - 1];
  } while (page.length === PAGE);
};

export const startReplyExpiry = (deps: ResourcesContext): Periodic =>
  startPeriodic('idempotent reply expiry', deps.config.idempotencyExpiryIntervalMs, () => shredExpiredReplies(deps), deps.log);
