// A recorded event as a store hands it over, for the tests of pure translations (no store): each
// call gets the next revision and position.
import type { Json, RecordedEvent } from '../../src/eventstore/port.js';

let revision = 0;

export const recordedOn = (streamId: string, event: { readonly type: string; readonly data: unknown }, created = new Date('2026-05-01T10:00:00.000Z')): RecordedEvent => ({
  streamId,
  id: `event-${++revision}`,
  type: event.type,
  revision,
  position: { commit: BigInt(revision), prepare: BigInt(revision) },
  data: JSON.parse(JSON.stringify(event.data)) as Json,
  metadata: null,
  created,
});
