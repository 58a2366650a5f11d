// Catch-up subscriptions to a stream or to $all: each subscriber keeps a cursor into the log.
import { randomUUID } from 'node:crypto';
import { streamDeletedError, type WireError } from './errors.js';
import type { StoredEvent } from './events.js';
import type { EventPredicate } from './filter.js';
import type { Log } from './log.js';
import { streamsPb, type ReadResp, type StreamsPbModule } from './protos.js';
import type { ResponseWriter } from './responseWriter.js';
import { eventResponse, withPosition } from './wire.js';

/** The server's page size, live-event buffer and default filter search window. */
const READ_BATCH_SIZE = 32;
const LIVE_BUFFER = 32;

/** Considered events between checkpoints of a filtered subscription (0: none are sent). */
export const checkpointIntervalOf = (options: StreamsPbModule.ReadReq.Options): number => {
  const filter = options.getFilter();
  if (!filter) return 0;
  const window = filter.hasMax() ? filter.getMax() : READ_BATCH_SIZE;
  return Math.max(1, filter.getCheckpointintervalmultiplier()) * Math.max(1, window);
};

/** What a subscription reads: a cursor over the log that never holds events of its own. */
export interface Feed {
  /** Events after the cursor, at most `limit`, moving the cursor past them. */
  take(limit: number): readonly StoredEvent[];
  pending(): number;
  /** An error that ends the subscription, checked before each page. */
  failure(): WireError | undefined;
}

export const allFeed = (log: Log, startIndex: number): Feed => {
  let cursor = startIndex;
  return {
    take(limit) {
      const page = log.allEvents.slice(cursor, cursor + limit);
      cursor += page.length;
      return page;
    },
    pending: () => log.allEvents.length - cursor,
    failure: () => undefined,
  };
};

export const streamFeed = (log: Log, streamId: string, startRevision: number): Feed => {
  let cursor = startRevision;
  const events = (): readonly StoredEvent[] => log.stream(streamId)?.events ?? [];
  return {
    take(limit) {
      const page = events().slice(cursor, cursor + limit);
      cursor += page.length;
      return page;
    },
    pending: () => Math.max(0, events().length - cursor),
    failure: () => (log.stream(streamId)?.tombstone ? streamDeletedError(streamId) : undefined),
  };
};

const readResp = (): ReadResp => new streamsPb.ReadResp();

/**
 * A catch-up subscription as Enumerator.AllSubscription runs it: confirm, send history page by
 * page, say caught_up at the head, then follow the log; a subscriber more than a live buffer behind
 * is told it fell behind and catches up again.
 */
export const runSubscription = async (
  log: Log,
  out: ResponseWriter,
  feed: Feed,
  filter: EventPredicate | undefined,
  checkpointInterval: number,
  structuredIds: boolean,
): Promise<void> => {
  const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID());
  if (!(await out.send(readResp().setConfirmation(confirmation)))) return;
  let live = false;
  let considered = 0;
  while (out.isOpen) {
    const failure = feed.failure();
    if (failure) return out.fail(failure);
    if (live && feed.pending() > LIVE_BUFFER) {
      live = false;
      if (!(await out.send(readResp().setFellBehind(new streamsPb.ReadResp.FellBehind())))) return;
    }
    const page = feed.take(READ_BATCH_SIZE);
    if (page.length === 0) {
      if (!live) {
        live = true;
        if (!(await out.send(readResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp())))) return;
        // Writes may have landed while that send waited; look again before sleeping.
        continue;
      }
      // Checked empty and started waiting in one synchronous step, so no write can slip between.
      await Promise.race([log.nextWrite(), out.ended]);
      continue;
    }
    for (const e of page) {
      considered += 1;
      if ((!filter || filter(e)) && !(await out.send(eventResponse(e, structuredIds)))) return;
      if (checkpointInterval > 0 && considered % checkpointInterval === 0) {
        const checkpoint = withPosition(new streamsPb.ReadResp.Checkpoint(), e.position);
        if (!(await out.send(readResp().setCheckpoint(checkpoint)))) return;
      }
    }
  }
};
