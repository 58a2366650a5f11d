// The EventStoreDB adapter: the port over @eventstore/db-client 6.x.
//
// EventStoreDB is the reference for the port's semantics, so most calls map one to one. The places
// where the server's answer needs work to fit the port:
//   - backwards $all reads: the server reads backwards from *before* a position, the port includes
//     the event at it, so that event is looked up and put first;
//   - system events: $all reads and subscriptions skip `$` event types on this side as well, since a
//     subscription filter can only be on stream name or on event type, not both;
//   - caught-up: the client emits a `caughtUp` event beside the event stream; it is turned into a
//     message at its exact place in the stream, once, though the server says it again after a
//     subscriber fell behind;
//   - positions: servers from 22.6 report a position for every event read; an append answered
//     without one (older servers' idempotent writes) looks the position up from the stored event;
//   - appends go through the classic Append call, never BatchAppend (see `withoutBatchAppend`).
// Subscriptions need a server that sends caught_up (gRPC ReadResp.caught_up, recent servers only);
// on one that does not, a subscription never says it caught up.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as FROM_START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type CurrentRevision,
  type ExpectedRevision as ClientExpectedRevision,
  type Filter,
  type JSONType,
  type ReadPosition,
  type RecordedEvent as ClientRecordedEvent,
  type ResolvedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import {
  START,
  comparePositions,
  isSystemEventType,
  matchesFilter,
  type ActualRevision,
  type AppendError,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type Json,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ReadStreamResult,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
  type SubscriptionFilter,
  type SubscriptionMessage,
} from './port.js';
import { streamRef } from '../../streams/kernel.js';

/** How many events a subscription holds between the socket and its reader; the rest waits upstream. */
const SUBSCRIPTION_BUFFER = 32;

export function openEventStoreDb(connectionString: string): EventStore {
  return new EventStoreDbStore(withoutBatchAppend(EventStoreDBClient.connectionString(connectionString)));
}

const BATCH_APPEND_PATH = '/event_store.client.streams.streams/batchappend';

type Supports = (method: { readonly path: string }, feature?: string) => Promise<boolean>;

/**
 * db-client 6.x keeps BatchAppend's pending appends in one process-wide map: an error on, or the
 * dispose of, any client's batch stream rejects the in-flight appends of every other client, and a
 * reply arriving after that crashes the process with a TypeError (fixed upstream only after the
 * rename, in KurrentDB-Client-NodeJS#523). Two stores in one process, or one store closing while
 * another appends, are enough to hit it. The classic Append call, one gRPC call per append, shares
 * nothing. The client uses BatchAppend only if the server's feature list has it, so it is told the
 * server does not; if the client's internals change, this fails loudly rather than silently.
 */
const withoutBatchAppend = (client: EventStoreDBClient): EventStoreDBClient => {
  const internals = client as unknown as { supports?: Supports };
  const supports = internals.supports;
  if (typeof supports !== 'function') {
    throw new Error('@eventstore/db-client changed: the BatchAppend opt-out no longer applies');
  }
  internals.supports = (method, feature) =>
    method.path.toLowerCase() === BATCH_APPEND_PATH ? Promise.resolve(false) : supports(method, feature);
  return client;
};

const toAppendExpected = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
};

/**
 * The client's tombstone options are typed without `stream_exists`, yet it sends that case on the
 * wire and the server honours it; the widening is confined here.
 */
const toTombstoneExpected = (expected: ExpectedRevision): ClientExpectedRevision =>
  toAppendExpected(expected) as ClientExpectedRevision;

/** Tombstone errors carry the server's raw number, where -1 means no stream. */
const toActual = (actual: CurrentRevision): ActualRevision =>
  actual === 'no_stream' || actual < 0n ? 'no_stream' : Number(actual);

const decodeUtf8Json = (bytes: Uint8Array): Json | undefined => {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as Json;
  } catch {
    return undefined;
  }
};

/** JSON events arrive parsed; events written as binary by other tools are read as JSON or text. */
const dataOf = (data: unknown): Json =>
  data instanceof Uint8Array ? (decodeUtf8Json(data) ?? Buffer.from(data).toString('utf8')) : (data as Json);

/** The client leaves metadata undefined when empty and as bytes when it is not JSON. */
const metadataOf = (metadata: unknown): Json => {
  if (metadata === undefined) return null;
  return metadata instanceof Uint8Array ? (decodeUtf8Json(metadata) ?? null) : (metadata as Json);
};

const toRecorded = (event: ClientRecordedEvent): RecordedEvent => {
  if (!event.position) {
    throw new Error(
      `EventStoreDB sent ${event.streamId}@${event.revision} without a position; servers before 22.6 are not supported`,
    );
  }
  return {
    streamId: event.streamId,
    id: event.id,
    type: event.type,
    revision: Number(event.revision),
    position: { commit: event.position.commit, prepare: event.position.prepare },
    data: dataOf(event.data),
    metadata: metadataOf(event.metadata),
    created: event.created,
  };
};

const toClientEvent = (event: EventData) =>
  jsonEvent({
    id: event.id,
    type: event.type,
    // The client JSON-encodes any value; its JSONType is only narrower than what it accepts.
    data: event.data as JSONType,
    // Encoded here because the client drops falsy metadata (`false`, `0`, `""`) it would encode itself.
    metadata: event.metadata === undefined ? undefined : new TextEncoder().encode(JSON.stringify(event.metadata)),
  });

const toClientFilter = (filter: SubscriptionFilter | undefined): Filter =>
  !filter
    ? excludeSystemEvents()
    : 'streamNamePrefixes' in filter
      ? streamNameFilter({ prefixes: [...filter.streamNamePrefixes] })
      : eventTypeFilter({ prefixes: [...filter.eventTypePrefixes] });

/**
 * Every read is consumed to its end, never abandoned: the client's `dispose()` waits for each of
 * its calls to finish, and a call whose reader stopped early never does, even once cancelled.
 * Reads therefore ask the server for exactly as many events as they will take.
 */
const readToEnd = async (read: StreamingRead<ResolvedEvent | AllStreamResolvedEvent>): Promise<ClientRecordedEvent[]> => {
  const events: ClientRecordedEvent[] = [];
  for await (const resolved of read) if (resolved.event) events.push(resolved.event);
  return events;
};

/** The client's `maxCount`: a number, or nothing for no limit. */
const countOption = (count: number): number | undefined => (Number.isFinite(count) ? count : undefined);

const samePosition = (event: ClientRecordedEvent, position: Position): boolean =>
  event.position !== undefined && comparePositions(event.position, position) === 0;

/** The typed failures of a write; anything else (connection, server errors) is rethrown. */
const typedWriteError = (streamId: string, expected: ExpectedRevision, error: unknown): AppendError => {
  if (error instanceof WrongExpectedVersionError) {
    return { _tag: 'WrongExpectedRevision', streamId, expected, actual: toActual(error.actualVersion) };
  }
  if (error instanceof StreamDeletedError) return { _tag: 'StreamDeleted', streamId };
  throw error;
};

class EventStoreDbStore implements EventStore {
  private readonly subscriptions = new Set<EsdbSubscription>();

  constructor(private readonly client: EventStoreDBClient) {}

  async append(
    streamId: string,
    events: readonly EventData[],
    expectedRevision: ExpectedRevision,
  ): Promise<Either<AppendError, AppendResult>> {
    try {
      const result = await this.client.appendToStream(streamId, events.map(toClientEvent), {
        expectedRevision: toAppendExpected(expectedRevision),
      });
      // For an empty append the server reports no event, and the client turns "no stream" into 0.
      if (events.length === 0) return right(await this.describeEmptyAppend(streamId));
      const nextExpectedRevision = Number(result.nextExpectedRevision);
      const position = result.position ?? (await this.positionOfRevision(streamId, nextExpectedRevision));
      return right({ nextExpectedRevision, position: { commit: position.commit, prepare: position.prepare } });
    } catch (error) {
      return left(typedWriteError(streamId, expectedRevision, error));
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<ReadStreamResult> {
    const backwards = options.direction === 'backwards';
    try {
      const read = this.client.readStream(streamId, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision === undefined ? (backwards ? END : FROM_START) : BigInt(options.fromRevision),
        maxCount: options.maxCount,
      });
      return { _tag: 'Found', events: (await readToEnd(read)).map(toRecorded) };
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { _tag: 'StreamNotFound', streamId };
      if (error instanceof StreamDeletedError) return { _tag: 'StreamDeleted', streamId };
      throw error;
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<readonly RecordedEvent[]> {
    const direction = options.direction === 'backwards' ? BACKWARDS : FORWARDS;
    const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
    if (limit <= 0) return [];
    const events: RecordedEvent[] = [];
    if (direction === BACKWARDS && options.fromPosition) {
      const at = await this.userEventAt(options.fromPosition);
      if (at) events.push(at);
    }
    // The server counts the system events skipped here, so a page can come back short of what the
    // port asked for: read on from its last event until enough were kept or $all runs out.
    let from: ReadPosition = options.fromPosition ?? (direction === BACKWARDS ? END : FROM_START);
    let alreadyRead: Position | undefined;
    while (events.length < limit) {
      // Forwards pages restart at the last event read, which a forwards read includes again.
      const wanted = limit - events.length + (alreadyRead ? 1 : 0);
      const page = await readToEnd(this.client.readAll({ direction, fromPosition: from, maxCount: countOption(wanted) }));
      for (const event of page) {
        if (events.length < limit && !(alreadyRead && samePosition(event, alreadyRead)) && !isSystemEventType(event.type)) {
          events.push(toRecorded(event));
        }
      }
      const last = page[page.length - 1];
      if (page.length < wanted || !last?.position) break;
      from = { commit: last.position.commit, prepare: last.position.prepare };
      alreadyRead = direction === FORWARDS ? from : undefined;
    }
    return events;
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    const after = options.after;
    const source = this.client.subscribeToAll(
      {
        // `START` means everything; as a position it would skip whatever sits exactly at 0/0.
        fromPosition: comparePositions(after, START) === 0 ? FROM_START : { commit: after.commit, prepare: after.prepare },
        filter: toClientFilter(options.filter),
      },
      { highWaterMark: SUBSCRIPTION_BUFFER },
    );
    const subscription = new EsdbSubscription(source, options.filter, () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    return subscription;
  }

  async tombstone(streamId: string, expectedRevision: ExpectedRevision): Promise<Either<AppendError, Position>> {
    try {
      const expected = toTombstoneExpected(expectedRevision);
      const result = await this.client.tombstoneStream(streamId, { expectedRevision: expected });
      // Servers answer a successful tombstone with its position; a missing one has no honest stand-in.
      if (!result.position) throw new Error(`EventStoreDB tombstoned ${streamRef(streamId)} without reporting a position`);
      return right({ commit: result.position.commit, prepare: result.position.prepare });
    } catch (error) {
      return left(typedWriteError(streamId, expectedRevision, error));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }

  private async positionOfRevision(streamId: string, revision: number): Promise<Position> {
    const read = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    const event = read._tag === 'Found' ? read.events[0] : undefined;
    if (!event) throw new Error(`EventStoreDB acknowledged ${streamRef(streamId)}@${revision} but it cannot be read back`);
    return event.position;
  }

  /** Matches the embedded store: the stream's revision (-1 for none) and the head of $all. */
  private async describeEmptyAppend(streamId: string): Promise<AppendResult> {
    const last = await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    const revision = last._tag === 'Found' ? (last.events[0]?.revision ?? -1) : -1;
    const [head] = await readToEnd(this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }));
    return { nextExpectedRevision: revision, position: head ? toRecorded(head).position : START };
  }

  private async userEventAt(position: Position): Promise<RecordedEvent | undefined> {
    const fromPosition = { commit: position.commit, prepare: position.prepare };
    const [at] = await readToEnd(this.client.readAll({ direction: FORWARDS, fromPosition, maxCount: 1 }));
    return at && samePosition(at, position) && !isSystemEventType(at.type) ? toRecorded(at) : undefined;
  }
}

/** Marks, inside the event stream, where the server said the subscription caught up. */
const CAUGHT_UP = Object.freeze({ caughtUp: true });
type Delivered = AllStreamResolvedEvent | typeof CAUGHT_UP;

class EsdbSubscription implements Subscription {
  private stopped = false;

  constructor(
    private readonly source: AllStreamSubscription,
    private readonly filter: SubscriptionFilter | undefined,
    private readonly onStop: () => void,
  ) {
    let caughtUp = false;
    // The client emits `caughtUp` while transforming the server's message, after every earlier
    // event was pushed and before any later one: pushing a marker there keeps the order exact.
    source.on('caughtUp', () => {
      if (caughtUp) return;
      caughtUp = true;
      source.push(CAUGHT_UP);
    });
    // The client reports failures with a bare 'error' event, which a reader that has not started
    // yet would miss; destroying with the error makes the stream remember it for the reader.
    source.on('error', (error: Error) => {
      if (!this.stopped && !source.destroyed) source.destroy(error);
    });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SubscriptionMessage, void, undefined> {
    try {
      for await (const item of this.source as AsyncIterable<Delivered>) {
        if (item === CAUGHT_UP) {
          yield { kind: 'caughtUp' };
          continue;
        }
        const event = 'event' in item ? item.event : undefined;
        if (!event || isSystemEventType(event.type) || !matchesFilter(this.filter, event.streamId, event.type)) continue;
        yield { kind: 'event', event: toRecorded(event) };
      }
    } catch (error) {
      if (!this.stopped) throw error;
    } finally {
      await this.stop();
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    try {
      // Cancels the call so the server stops sending; the client swallows its own cancellation.
      await this.source.unsubscribe();
    } catch {
      // Never connected: there is no call to cancel.
    }
    // Wakes a reader waiting for the next message; it sees the stop and ends.
    this.source.destroy();
    this.onStop();
  }
}
