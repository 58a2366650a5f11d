// The event store port. Both adapters (embedded SQLite and EventStoreDB) implement it with
// EventStoreDB's semantics, so no caller can tell which one it has. The contract suite in
// test/eventstore.contract.ts is the definition of "correct".
import type { Either } from 'fp-ts/lib/Either.js';
import type { EventData, Position, RecordedEvent } from '../../streams/kernel.js';

// The store-facing types the write side shares live in the kernel; the port is their home for
// everything in `src/`.
export { formatPosition, parsePosition, streamName, type EventData, type Json, type Position, type RecordedEvent } from '../../streams/kernel.js';

export const START: Position = { commit: 0n, prepare: 0n };

export const comparePositions = (a: Position, b: Position): number =>
  a.commit === b.commit ? Number(a.prepare - b.prepare) : a.commit < b.commit ? -1 : 1;

/** What the writer believes about the stream before its append. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

/** The stream's actual state, reported when an expectation fails. */
export type ActualRevision = number | 'no_stream';

export interface AppendResult {
  /** Revision of the last event now in the stream: the expected revision for the next append. */
  readonly nextExpectedRevision: number;
  /** Position of the last appended event in `$all`. */
  readonly position: Position;
}

export interface WrongExpectedRevision {
  readonly _tag: 'WrongExpectedRevision';
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  readonly actual: ActualRevision;
}

export interface StreamDeleted {
  readonly _tag: 'StreamDeleted';
  readonly streamId: string;
}

export type AppendError = WrongExpectedRevision | StreamDeleted;

export type ReadStreamResult =
  | { readonly _tag: 'Found'; readonly events: readonly RecordedEvent[] }
  | { readonly _tag: 'StreamNotFound'; readonly streamId: string }
  | StreamDeleted;

export type Direction = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  readonly direction?: Direction;
  /** Inclusive; defaults to the start (forwards) or the end (backwards). */
  readonly fromRevision?: number;
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  readonly direction?: Direction;
  /** Inclusive; defaults to the start (forwards) or the end (backwards). */
  readonly fromPosition?: Position;
  readonly maxCount?: number;
}

/** Server-side filter of a `$all` subscription; each is a list of prefixes, any of which matches. */
export type SubscriptionFilter =
  | { readonly streamNamePrefixes: readonly string[] }
  | { readonly eventTypePrefixes: readonly string[] };

export interface SubscribeToAllOptions {
  /** Exclusive: the first event delivered is the one after this position. `START` means all history. */
  readonly after: Position;
  readonly filter?: SubscriptionFilter;
}

export type SubscriptionMessage =
  | { readonly kind: 'event'; readonly event: RecordedEvent }
  /** History has been delivered; what follows is live. Sent once per subscription. */
  | { readonly kind: 'caughtUp' };

/**
 * A catch-up subscription. Iterate it to receive messages in `$all` order; it ends when
 * `stop()` is called or the store closes, and throws if the connection fails.
 */
export interface Subscription extends AsyncIterable<SubscriptionMessage> {
  stop(): Promise<void>;
}

export interface EventStore {
  append(
    streamId: string,
    events: readonly EventData[],
    expectedRevision: ExpectedRevision,
  ): Promise<Either<AppendError, AppendResult>>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<ReadStreamResult>;
  readAll(options?: ReadAllOptions): Promise<readonly RecordedEvent[]>;
  subscribeToAll(options: SubscribeToAllOptions): Subscription;
  /** Deletes the stream for good: it can never be written or read again. */
  tombstone(streamId: string, expectedRevision: ExpectedRevision): Promise<Either<AppendError, Position>>;
  /**
   * Another process sharing this store (a worker: src/workers/) has made everything up to
   * `position` durable: live subscriptions read on at once instead of at their next poll. Only a
   * store whose subscriptions poll has it; EventStoreDB pushes to its subscriptions itself.
   */
  readonly appendedElsewhere?: (position: Position) => void;
  close(): Promise<void>;
}

/** Events whose type starts with `$` belong to the store itself and are never delivered. */
export const isSystemEventType = (type: string): boolean => type.startsWith('$');

export const matchesFilter = (filter: SubscriptionFilter | undefined, streamId: string, type: string): boolean => {
  if (!filter) return true;
  const [subject, prefixes] =
    'streamNamePrefixes' in filter ? [streamId, filter.streamNamePrefixes] : [type, filter.eventTypePrefixes];
  return prefixes.some((p) => subject.startsWith(p));
};
