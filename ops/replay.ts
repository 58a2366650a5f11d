// Auditor replay: events as JSON lines, exactly as recorded, in stream or `$all` order.
import { comparePositions, formatPosition, type EventStore, type Position, type RecordedEvent } from '../src/eventstore/port.js';

const PAGE = 500;

export const eventLine = (event: RecordedEvent): string =>
  JSON.stringify({
    position: formatPosition(event.position),
    stream: event.streamId,
    revision: event.revision,
    id: event.id,
    type: event.type,
    created: event.created.toISOString(),
    data: event.data,
    metadata: event.metadata,
  });

/** Writes one stream; returns false when it does not exist (or was deleted). */
export const printStream = async (store: EventStore, streamId: string, write: (line: string) => void): Promise<boolean> => {
  let from = 0;
  for (;;) {
    const read = await store.readStream(streamId, { fromRevision: from, maxCount: PAGE });
    if (read._tag !== 'Found') return false;
    for (const event of read.events) write(eventLine(event));
    if (read.events.length < PAGE) return true;
    from = read.events[read.events.length - 1]!.revision + 1;
  }
};

/** Writes `$all` from `from` to `to`, both inclusive; returns how many events were written. */
export const printAll = async (
  store: EventStore,
  range: { readonly from?: Position; readonly to?: Position },
  write: (line: string) => void,
): Promise<number> => {
  let count = 0;
  let from = range.from;
  for (;;) {
    const page = await store.readAll({ ...(from ? { fromPosition: from } : {}), maxCount: PAGE + 1 });
    // Reads are inclusive: after the first page, the first event is the last one already written.
    const fresh = from && range.from !== from ? page.slice(1) : page;
    for (const event of fresh) {
      if (range.to && comparePositions(event.position, range.to) > 0) return count;
      write(eventLine(event));
      count++;
    }
    if (page.length <= PAGE) return count;
    from = page[page.length - 1]!.position;
  }
};
