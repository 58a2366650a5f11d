// Auditor replay: events exactly as recorded, in stream or `$all` order. Nothing is decrypted:
// sealed fields stay sealed, and an erased flow's data stays erased.
import { comparePositions, formatPosition, type EventStore, type Position, type RecordedEvent } from '../src/eventstore/port.js';

const PAGE = 500;

/** An event as recorded, for JSON. */
export const recordedJson = (event: RecordedEvent) => ({
  position: formatPosition(event.position),
  stream: event.streamId,
  revision: event.revision,
  id: event.id,
  type: event.type,
  created: event.created.toISOString(),
  data: event.data,
  metadata: event.metadata,
});

/** Hands over one stream's events in order; false when it does not exist (or was deleted). */
export const replayStream = async (store: EventStore, streamId: string, each: (event: RecordedEvent) => void): Promise<boolean> => {
  let from = 0;
  for (;;) {
    const read = await store.readStream(streamId, { fromRevision: from, maxCount: PAGE });
    if (read._tag !== 'Found') return false;
    for (const event of read.events) each(event);
    if (read.events.length < PAGE) return true;
    from = read.events[read.events.length - 1]!.revision + 1;
  }
};

/** Hands over `$all` from `from` to `to`, both inclusive. */
export const replayAll = async (
  store: EventStore,
  range: { readonly from?: Position | undefined; readonly to?: Position | undefined },
  each: (event: RecordedEvent) => void,
): Promise<void> => {
  let from = range.from;
  for (;;) {
    const page = await store.readAll({ ...(from ? { fromPosition: from } : {}), maxCount: PAGE + 1 });
    // Reads are inclusive: after the first page, the first event is the last one already handed over.
    const fresh = from && range.from !== from ? page.slice(1) : page;
    for (const event of fresh) {
      if (range.to && comparePositions(event.position, range.to) > 0) return;
      each(event);
    }
    if (page.length <= PAGE) return;
    from = page[page.length - 1]!.position;
  }
};
