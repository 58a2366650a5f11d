// A test double of an EventStoreDB node that speaks the real gRPC wire protocol, so the EventStoreDB
// adapter can be exercised through the official client (@eventstore/db-client) without a server.
// It is built on the client package's own generated service definitions and messages, and its rules
// are ported from the EventStoreDB server sources (Streams.*.cs, IndexWriter.CheckCommit,
// AllReader, Enumerator.AllSubscription*), not invented here.
//
// What it covers, with the real server's semantics:
//   - ServerFeatures.GetSupportedMethods, listing exactly the methods below (as a 21.10+ node does),
//     so a stock client appends through BatchAppend (the adapter opts out of it; see esdb.ts).
//   - Streams.BatchAppend and Streams.Append: revisions from 0; expected revision any / no_stream /
//     stream_exists / exact; the server's idempotency rules (the same event ids at the same place
//     succeed without writing, a partial match is a wrong expected version, and with any or
//     stream_exists a batch whose ids are all in the stream is a retry); wrong-expected-version and
//     stream-deleted errors in the shape each call uses (google.rpc.Status for BatchAppend, an
//     AppendResp field or an RpcException for Append). A successful append reports the revision and
//     $all position of its last event, an idempotent one those of the event already stored.
//   - Streams.Tombstone: the same expected-revision checks, a `$streamDeleted` record in $all, and a
//     stream that can never be written, read or tombstoned again.
//   - Streams.Read: stream reads either way with a start revision and count, stream_not_found for a
//     missing stream, an error for a deleted one; $all reads forwards (inclusive start) and backwards
//     (exclusive start, as EventStoreDB reads backwards from a record's post-position); catch-up
//     subscriptions to a stream or to $all with prefix or regex filters on stream name or event type:
//     confirmation, history, caught_up, live events, fell_behind and caught_up again when a subscriber
//     falls more than a live buffer's worth behind, and checkpoints for filtered subscriptions.
//   - Positions are byte-offset-like log positions with commit == prepare for every event (a modern
//     log), growing by a record-sized step, so nothing can assume they are consecutive. Like a real
//     node, $all is not empty at start: it holds a `$epoch-information` system event.
//   - Backpressure: responses are written only as fast as the client reads them (awaiting 'drain');
//     nothing is buffered per subscriber, a subscriber just keeps a cursor into the log.
//
// What it does not cover: TLS and authentication (insecure only; credentials are ignored), Gossip
// and clusters (a single-node connection string never calls Gossip), soft delete (Streams.Delete
// answers UNIMPLEMENTED and is not advertised), stream metadata and ACLs, link resolution,
// persistent subscriptions, projections, deadlines, maximum append size, invalid-position checks,
// scavenging, and durability: state lives in memory for the life of the double. One difference
// is deliberate: with any/stream_exists a real server recognises retries from a bounded cache of
// recent event ids (best effort, as its client documents), the double from every id it holds.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type ServerDuplexStream,
  type ServerReadableStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type * as StreamsPbModule from '@eventstore/db-client/generated/streams_pb.js';
import type * as StreamsGrpcModule from '@eventstore/db-client/generated/streams_grpc_pb.js';
import type * as SharedPbModule from '@eventstore/db-client/generated/shared_pb.js';
import type * as StatusPbModule from '@eventstore/db-client/generated/status_pb.js';
import type * as CodePbModule from '@eventstore/db-client/generated/code_pb.js';
import type * as FeaturesPbModule from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type * as FeaturesGrpcModule from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import type * as AnyPbModule from 'google-protobuf/google/protobuf/any_pb.js';
import type * as EmptyPbModule from 'google-protobuf/google/protobuf/empty_pb.js';

// The generated modules are CommonJS objects filled in at run time, which ESM named imports cannot
// see; requiring them also guarantees the very instances the client uses.
const require = createRequire(import.meta.url);
const streamsPb = require('@eventstore/db-client/generated/streams_pb.js') as typeof StreamsPbModule;
const streamsGrpc = require('@eventstore/db-client/generated/streams_grpc_pb.js') as typeof StreamsGrpcModule;
const sharedPb = require('@eventstore/db-client/generated/shared_pb.js') as typeof SharedPbModule;
const statusPb = require('@eventstore/db-client/generated/status_pb.js') as typeof StatusPbModule;
const { Code } = require('@eventstore/db-client/generated/code_pb.js') as typeof CodePbModule;
const featuresPb = require('@eventstore/db-client/generated/serverfeatures_pb.js') as typeof FeaturesPbModule;
const featuresGrpc = require('@eventstore/db-client/generated/serverfeatures_grpc_pb.js') as typeof FeaturesGrpcModule;
const anyPb = require('google-protobuf/google/protobuf/any_pb.js') as typeof AnyPbModule;
const emptyPb = require('google-protobuf/google/protobuf/empty_pb.js') as typeof EmptyPbModule;

type ReadReq = StreamsPbModule.ReadReq;
type ReadResp = StreamsPbModule.ReadResp;
const ReadOptions = streamsPb.ReadReq.Options;

export interface EventStoreDbDouble {
  /** `esdb://127.0.0.1:PORT?tls=false` */
  readonly connectionString: string;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The log: EventStoreDB's write and read rules over in-memory state.
// ---------------------------------------------------------------------------------------------

/** ExpectedVersion constants of the server's internal API. */
const EXPECTED_ANY = -2n;
const EXPECTED_NO_STREAM = -1n;
const EXPECTED_STREAM_EXISTS = -4n;
const NO_STREAM = -1n;
/** EventNumber.DeletedStream: the revision of a tombstone and the "current revision" of its stream. */
const DELETED_STREAM = 9223372036854775807n;
const TOMBSTONE_TYPE = '$streamDeleted';
const JSON_CONTENT = 'application/json';
const BINARY_CONTENT = 'application/octet-stream';
/** The server's page size, live-event buffer and default filter search window. */
const READ_BATCH_SIZE = 32;
const LIVE_BUFFER = 32;
const TICKS_PER_MS = 10_000n;

interface ProposedEvent {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly metadata: Uint8Array;
}

interface StoredEvent extends ProposedEvent {
  readonly streamId: string;
  readonly revision: bigint;
  /** Log position; commit and prepare are equal for every event in a modern log. */
  readonly position: bigint;
  /** .NET ticks since the Unix epoch, as the server reports `created`. */
  readonly created: bigint;
}

interface StreamState {
  readonly events: StoredEvent[];
  readonly byId: Map<string, StoredEvent>;
  tombstone?: StoredEvent;
}

/** A pair compared as EventStoreDB compares TFPos: commit first, then prepare. */
interface LogPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

const positionOf = (e: StoredEvent): LogPosition => ({ commit: e.position, prepare: e.position });

const compare = (a: LogPosition, b: LogPosition): number =>
  a.commit === b.commit ? (a.prepare === b.prepare ? 0 : a.prepare < b.prepare ? -1 : 1) : a.commit < b.commit ? -1 : 1;

type CommitDecision =
  | { readonly kind: 'ok' }
  | { readonly kind: 'idempotent'; readonly last: StoredEvent }
  | { readonly kind: 'wrongExpectedVersion'; readonly current: bigint }
  | { readonly kind: 'deleted' };

type WriteOutcome =
  | { readonly kind: 'written'; readonly current: bigint; readonly position: bigint | undefined }
  | { readonly kind: 'wrongExpectedVersion'; readonly current: bigint }
  | { readonly kind: 'deleted' };

class Log {
  private readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StreamState>();
  /** A real log opens with an epoch record at 0, so no event ever sits at 0/0. */
  private nextPosition = 128n;
  private appended: { promise: Promise<void>; resolve: () => void } = Log.signal();

  constructor() {
    // A real node's log starts with its own records; clients must cope with `$` events in $all.
    const epoch: ProposedEvent = {
      id: randomUUID(),
      type: '$epoch-information',
      contentType: JSON_CONTENT,
      data: utf8('{"epochNumber":0}'),
      metadata: new Uint8Array(),
    };
    this.write('$epoch-information', [epoch]);
  }

  private static signal(): { promise: Promise<void>; resolve: () => void } {
    let resolve = (): void => undefined;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  /** Resolves at the next write; subscribers wait on it instead of buffering live events. */
  nextWrite(): Promise<void> {
    return this.appended.promise;
  }

  stream(streamId: string): StreamState | undefined {
    return this.streams.get(streamId);
  }

  get allEvents(): readonly StoredEvent[] {
    return this.all;
  }

  /** -1 for no stream, DELETED_STREAM once tombstoned, else the last revision. */
  currentRevision(streamId: string): bigint {
    const stream = this.streams.get(streamId);
    if (!stream) return NO_STREAM;
    if (stream.tombstone) return DELETED_STREAM;
    return BigInt(stream.events.length) - 1n;
  }

  append(streamId: string, expected: bigint, events: readonly ProposedEvent[]): WriteOutcome {
    const decision = this.checkCommit(streamId, expected, events.map((e) => e.id));
    switch (decision.kind) {
      case 'deleted':
      case 'wrongExpectedVersion':
        return decision;
      case 'idempotent':
        return { kind: 'written', current: decision.last.revision, position: decision.last.position };
      case 'ok': {
        if (events.length === 0) return { kind: 'written', current: this.currentRevision(streamId), position: undefined };
        const last = this.write(streamId, events);
        return { kind: 'written', current: last.revision, position: last.position };
      }
    }
  }

  tombstone(streamId: string, expected: bigint): WriteOutcome {
    // The server checks a delete like a write of one new event, so a delete is never idempotent.
    const decision = this.checkCommit(streamId, expected, [randomUUID()]);
    if (decision.kind === 'deleted' || decision.kind === 'wrongExpectedVersion') return decision;
    const record = this.record(streamId, DELETED_STREAM, {
      id: randomUUID(),
      type: TOMBSTONE_TYPE,
      contentType: BINARY_CONTENT,
      data: new Uint8Array(),
      metadata: new Uint8Array(),
    });
    const stream = this.streams.get(streamId) ?? this.newStream(streamId);
    stream.tombstone = record;
    this.all.push(record);
    this.notify();
    return { kind: 'written', current: DELETED_STREAM, position: record.position };
  }

  /** Index in $all of the first event at or after `from` (forwards reads are inclusive). */
  firstIndexAtOrAfter(from: LogPosition): number {
    return this.search((e) => compare(positionOf(e), from) >= 0);
  }

  /** Index in $all of the first event strictly after `after` (subscriptions resume exclusively). */
  firstIndexAfter(after: LogPosition): number {
    return this.search((e) => compare(positionOf(e), after) > 0);
  }

  private search(isAtOrBeyond: (e: StoredEvent) => boolean): number {
    let low = 0;
    let high = this.all.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (isAtOrBeyond(this.all[mid]!)) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  /** IndexWriter.CheckCommit, minus soft deletes and metadata streams. */
  private checkCommit(streamId: string, expected: bigint, ids: readonly string[]): CommitDecision {
    const current = this.currentRevision(streamId);
    if (current === DELETED_STREAM) return { kind: 'deleted' };
    if (expected === EXPECTED_STREAM_EXISTS && current < 0n) return { kind: 'wrongExpectedVersion', current };
    const stream = this.streams.get(streamId);

    if (expected === EXPECTED_ANY || expected === EXPECTED_STREAM_EXISTS) {
      // Without a revision to compare, a retry is recognised by its event ids alone.
      let last: StoredEvent | undefined;
      for (const [i, id] of ids.entries()) {
        const stored = stream?.byId.get(id);
        if (!stored) return i === 0 ? { kind: 'ok' } : { kind: 'wrongExpectedVersion', current };
        last = stored;
      }
      return last ? { kind: 'idempotent', last } : { kind: 'ok' };
    }

    if (expected < current) {
      // The stream has moved past the expectation: it is a retry only if the same ids sit exactly
      // where this append would have put them.
      let revision = expected;
      let last: StoredEvent | undefined;
      for (const id of ids) {
        revision += 1n;
        const stored = stream?.events[Number(revision)];
        if (!stored || stored.id !== id) return { kind: 'wrongExpectedVersion', current };
        last = stored;
      }
      return last ? { kind: 'idempotent', last } : { kind: 'wrongExpectedVersion', current };
    }

    if (expected > current) return { kind: 'wrongExpectedVersion', current };
    return { kind: 'ok' };
  }

  private write(streamId: string, events: readonly ProposedEvent[]): StoredEvent {
    const stream = this.streams.get(streamId) ?? this.newStream(streamId);
    let last: StoredEvent | undefined;
    for (const proposed of events) {
      last = this.record(streamId, BigInt(stream.events.length), proposed);
      stream.events.push(last);
      stream.byId.set(last.id, last);
      this.all.push(last);
    }
    this.notify();
    return last!;
  }

  private record(streamId: string, revision: bigint, proposed: ProposedEvent): StoredEvent {
    const position = this.nextPosition;
    // Roughly a prepare record's size, so positions are offsets, not a sequence.
    const names = Buffer.byteLength(streamId) + Buffer.byteLength(proposed.type);
    this.nextPosition += 80n + BigInt(names + proposed.data.length + proposed.metadata.length);
    return { ...proposed, streamId, revision, position, created: BigInt(Date.now()) * TICKS_PER_MS };
  }

  private newStream(streamId: string): StreamState {
    const stream: StreamState = { events: [], byId: new Map() };
    this.streams.set(streamId, stream);
    return stream;
  }

  private notify(): void {
    const previous = this.appended;
    this.appended = Log.signal();
    previous.resolve();
  }
}

// ---------------------------------------------------------------------------------------------
// Wire mapping: protobuf messages to and from the log's terms.
// ---------------------------------------------------------------------------------------------

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

const streamNameOf = (identifier: SharedPbModule.StreamIdentifier | undefined): string =>
  Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');

const streamIdentifier = (streamId: string): SharedPbModule.StreamIdentifier =>
  new sharedPb.StreamIdentifier().setStreamName(utf8(streamId));

const hex64 = (signed: string): string => BigInt.asUintN(64, BigInt(signed)).toString(16).padStart(16, '0');

/** Accepts both UUID encodings a client may send; the log keys events by the canonical string. */
const parseUuid = (uuid: SharedPbModule.UUID | undefined): string => {
  if (!uuid) throw new Error('missing UUID');
  const structured = uuid.getStructured();
  if (!structured) return uuid.getString().toLowerCase();
  const h = hex64(structured.getMostSignificantBits()) + hex64(structured.getLeastSignificantBits());
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

const toUuid = (id: string, structured: boolean): SharedPbModule.UUID => {
  const uuid = new sharedPb.UUID();
  if (!structured) return uuid.setString(id);
  const h = id.replaceAll('-', '');
  const signed = (part: string): string => BigInt.asIntN(64, BigInt(`0x${part}`)).toString();
  const bits = new sharedPb.UUID.Structured()
    .setMostSignificantBits(signed(h.slice(0, 16)))
    .setLeastSignificantBits(signed(h.slice(16)));
  return uuid.setStructured(bits);
};

/** A gRPC error as the server raises it (RpcExceptions.cs): status code plus `exception` metadata. */
interface WireError {
  readonly code: status;
  readonly details: string;
  readonly metadata: Metadata;
}

const wireError = (code: status, details: string, entries: Record<string, string> = {}): WireError => {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return { code, details, metadata };
};

const streamDeletedError = (streamId: string): WireError =>
  wireError(status.FAILED_PRECONDITION, `Event stream '${streamId}' is deleted.`, {
    exception: 'stream-deleted',
    'stream-name': streamId,
  });

const wrongExpectedVersionError = (operation: string, streamId: string, expected: bigint, current: bigint): WireError =>
  wireError(
    status.FAILED_PRECONDITION,
    `${operation} failed due to WrongExpectedVersion. ` +
      `Stream: ${streamId}, Expected version: ${expected}, Actual version: ${current}`,
    {
      exception: 'wrong-expected-version',
      'stream-name': streamId,
      'expected-version': expected.toString(),
      'actual-version': current.toString(),
    },
  );

const missingMetadataError = (property: string): WireError =>
  wireError(status.INVALID_ARGUMENT, `Required Metadata Property '${property}' is missing`, {
    exception: 'missing-required-metadata-property',
    'required-metadata-properties': 'type,content-type',
  });

interface ExpectedRevisionOptions {
  hasAny(): boolean;
  hasNoStream(): boolean;
  hasStreamExists(): boolean;
}

/** The oneof shared by Append, BatchAppend and Tombstone options, as the server's ExpectedVersion. */
const expectedOf = (options: ExpectedRevisionOptions, revision: () => string): bigint => {
  if (options.hasAny()) return EXPECTED_ANY;
  if (options.hasNoStream()) return EXPECTED_NO_STREAM;
  if (options.hasStreamExists()) return EXPECTED_STREAM_EXISTS;
  return BigInt(revision());
};

interface ProposedMessage {
  getId(): SharedPbModule.UUID | undefined;
  getMetadataMap(): { get(key: string): string | undefined };
  getData_asU8(): Uint8Array;
  getCustomMetadata_asU8(): Uint8Array;
}

const proposedEvent = (message: ProposedMessage): ProposedEvent | WireError => {
  const type = message.getMetadataMap().get('type');
  if (type === undefined) return missingMetadataError('type');
  const contentType = message.getMetadataMap().get('content-type');
  if (contentType === undefined) return missingMetadataError('content-type');
  return {
    id: parseUuid(message.getId()),
    type,
    contentType,
    data: message.getData_asU8(),
    metadata: message.getCustomMetadata_asU8(),
  };
};

const isWireError = (value: ProposedEvent | WireError): value is WireError => 'code' in value;

/** Position messages of the different calls all carry the same two fields. */
const withPosition = <P extends { setCommitPosition(v: string): P; setPreparePosition(v: string): P }>(
  message: P,
  position: bigint,
): P => message.setCommitPosition(position.toString()).setPreparePosition(position.toString());

const eventResponse = (e: StoredEvent, structuredIds: boolean): ReadResp => {
  const recorded = withPosition(new streamsPb.ReadResp.ReadEvent.RecordedEvent(), e.position)
    .setId(toUuid(e.id, structuredIds))
    .setStreamIdentifier(streamIdentifier(e.streamId))
    .setStreamRevision(e.revision.toString())
    .setData(e.data)
    .setCustomMetadata(e.metadata);
  recorded.getMetadataMap().set('type', e.type).set('created', e.created.toString()).set('content-type', e.contentType);
  // A self-committed event's position is known on every read, so the server always sends it.
  const event = new streamsPb.ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(e.position.toString());
  return new streamsPb.ReadResp().setEvent(event);
};

// ---------------------------------------------------------------------------------------------
// Streams.Read: reads and catch-up subscriptions.
// ---------------------------------------------------------------------------------------------

/** Writes one response, waiting while the client is not reading. False once the call is over. */
class ResponseWriter {
  private closed = false;
  private markClosed: () => void = () => undefined;
  /** Resolves when the call ends, so waits elsewhere can be abandoned. */
  readonly ended = new Promise<void>((resolve) => (this.markClosed = resolve));

  constructor(
    private readonly call: ServerWritableStream<ReadReq, ReadResp>,
    private readonly open: Set<ResponseWriter>,
  ) {
    open.add(this);
    call.on('cancelled', this.close);
    call.on('close', this.close);
    call.on('error', this.close);
  }

  /** Marks the call over; also used for a server that is going away. */
  readonly close = (): void => {
    this.closed = true;
    this.open.delete(this);
    this.markClosed();
  };

  get isOpen(): boolean {
    return !this.closed;
  }

  async send(message: ReadResp): Promise<boolean> {
    if (this.closed) return false;
    if (!this.call.write(message)) {
      let onDrain = (): void => undefined;
      await Promise.race([new Promise<void>((resolve) => this.call.once('drain', (onDrain = resolve))), this.ended]);
      this.call.off('drain', onDrain);
    }
    return !this.closed;
  }

  end(): void {
    if (!this.closed) this.call.end();
  }

  fail(error: WireError): void {
    if (!this.closed) this.call.emit('error', error);
  }
}

type EventPredicate = (e: StoredEvent) => boolean;

/** FilterOptions as the server's EventFilter: prefixes (any matches) or a regex, on one field. */
const filterOf = (options: StreamsPbModule.ReadReq.Options): EventPredicate | undefined => {
  const filter = options.getFilter();
  if (!filter) return undefined;
  const expression = filter.getStreamIdentifier() ?? filter.getEventType();
  if (!expression) return undefined;
  const field = filter.hasStreamIdentifier() ? (e: StoredEvent) => e.streamId : (e: StoredEvent) => e.type;
  const prefixes = expression.getPrefixList();
  if (prefixes.length > 0) return (e) => prefixes.some((p) => field(e).startsWith(p));
  const regex = new RegExp(expression.getRegex());
  return (e) => regex.test(field(e));
};

/** Considered events between checkpoints of a filtered subscription (0: none are sent). */
const checkpointIntervalOf = (options: StreamsPbModule.ReadReq.Options): number => {
  const filter = options.getFilter();
  if (!filter) return 0;
  const window = filter.hasMax() ? filter.getMax() : READ_BATCH_SIZE;
  return Math.max(1, filter.getCheckpointintervalmultiplier()) * Math.max(1, window);
};

/** What a subscription reads: a cursor over the log that never holds events of its own. */
interface Feed {
  /** Events after the cursor, at most `limit`, moving the cursor past them. */
  take(limit: number): readonly StoredEvent[];
  pending(): number;
  /** An error that ends the subscription, checked before each page. */
  failure(): WireError | undefined;
}

const allFeed = (log: Log, startIndex: number): Feed => {
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

const streamFeed = (log: Log, streamId: string, startRevision: number): Feed => {
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
const runSubscription = async (
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

const sendAll = async (out: ResponseWriter, events: readonly StoredEvent[], structuredIds: boolean): Promise<void> => {
  for (const e of events) if (!(await out.send(eventResponse(e, structuredIds)))) return;
  out.end();
};

const countOf = (options: StreamsPbModule.ReadReq.Options): number => {
  const count = BigInt(options.getCount());
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
};

const readStream = async (log: Log, out: ResponseWriter, options: StreamsPbModule.ReadReq.Options): Promise<void> => {
  const streamOptions = options.getStream()!;
  const streamId = streamNameOf(streamOptions.getStreamIdentifier());
  const structuredIds = options.getUuidOption()?.hasStructured() ?? false;
  const Revision = ReadOptions.StreamOptions.RevisionOptionCase;
  const revisionCase = streamOptions.getRevisionOptionCase();
  const stream = log.stream(streamId);

  if (options.hasSubscription()) {
    if (stream?.tombstone) return out.fail(streamDeletedError(streamId));
    const start =
      revisionCase === Revision.END
        ? (stream?.events.length ?? 0)
        : revisionCase === Revision.REVISION
          ? Number(BigInt(streamOptions.getRevision())) + 1
          : 0;
    return runSubscription(log, out, streamFeed(log, streamId, start), undefined, 0, structuredIds);
  }

  if (stream?.tombstone) return out.fail(streamDeletedError(streamId));
  if (!stream || stream.events.length === 0) {
    const notFound = new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(streamId));
    await out.send(new streamsPb.ReadResp().setStreamNotFound(notFound));
    return out.end();
  }
  const count = countOf(options);
  const events = stream.events;
  if (options.getReadDirection() === ReadOptions.ReadDirection.BACKWARDS) {
    const from =
      revisionCase === Revision.REVISION
        ? Math.min(Number(BigInt(streamOptions.getRevision())), events.length - 1)
        : revisionCase === Revision.START
          ? 0
          : events.length - 1;
    return sendAll(out, events.slice(Math.max(0, from - count + 1), from + 1).reverse(), structuredIds);
  }
  const from =
    revisionCase === Revision.REVISION
      ? Number(BigInt(streamOptions.getRevision()))
      : revisionCase === Revision.END
        ? events.length
        : 0;
  return sendAll(out, events.slice(from, from + count), structuredIds);
};

const readAll = async (log: Log, out: ResponseWriter, options: StreamsPbModule.ReadReq.Options): Promise<void> => {
  const allOptions = options.getAll()!;
  const structuredIds = options.getUuidOption()?.hasStructured() ?? false;
  const filter = filterOf(options);
  const AllCase = ReadOptions.AllOptions.AllOptionCase;
  const positionCase = allOptions.getAllOptionCase();
  const requested = allOptions.getPosition();
  const position: LogPosition | undefined =
    positionCase === AllCase.POSITION && requested
      ? { commit: BigInt(requested.getCommitPosition()), prepare: BigInt(requested.getPreparePosition()) }
      : undefined;
  const events = log.allEvents;

  if (options.hasSubscription()) {
    const start = positionCase === AllCase.END ? events.length : position ? log.firstIndexAfter(position) : 0;
    return runSubscription(log, out, allFeed(log, start), filter, checkpointIntervalOf(options), structuredIds);
  }

  const count = countOf(options);
  const selected: StoredEvent[] = [];
  const select = (e: StoredEvent): void => {
    if (!filter || filter(e)) selected.push(e);
  };
  if (options.getReadDirection() === ReadOptions.ReadDirection.BACKWARDS) {
    // Backwards reads start from a post-position: the record at `position` itself is not included.
    const end = positionCase === AllCase.START ? 0 : position ? log.firstIndexAtOrAfter(position) : events.length;
    for (let i = end - 1; i >= 0 && selected.length < count; i--) select(events[i]!);
  } else {
    const start = positionCase === AllCase.END ? events.length : position ? log.firstIndexAtOrAfter(position) : 0;
    for (let i = start; i < events.length && selected.length < count; i++) select(events[i]!);
  }
  return sendAll(out, selected, structuredIds);
};

const handleRead = (log: Log, open: Set<ResponseWriter>) => (call: ServerWritableStream<ReadReq, ReadResp>): void => {
  const out = new ResponseWriter(call, open);
  const options = call.request.getOptions();
  const run = async (): Promise<void> => {
    if (!options) return out.fail(wireError(status.INVALID_ARGUMENT, 'Read options are required'));
    if (options.hasStream()) return readStream(log, out, options);
    if (options.hasAll()) return readAll(log, out, options);
    return out.fail(wireError(status.INVALID_ARGUMENT, 'Either a stream or $all must be read'));
  };
  run().catch((error: unknown) => out.fail(wireError(status.INTERNAL, String(error))));
};

// ---------------------------------------------------------------------------------------------
// Writes: Append, BatchAppend, Tombstone.
// ---------------------------------------------------------------------------------------------

type AppendReq = StreamsPbModule.AppendReq;
type AppendResp = StreamsPbModule.AppendResp;
type BatchAppendReq = StreamsPbModule.BatchAppendReq;
type BatchAppendResp = StreamsPbModule.BatchAppendResp;
type TombstoneReq = StreamsPbModule.TombstoneReq;
type TombstoneResp = StreamsPbModule.TombstoneResp;

const handleAppend =
  (log: Log) =>
  (call: ServerReadableStream<AppendReq, AppendResp>, callback: sendUnaryData<AppendResp>): void => {
    let header: { streamId: string; expected: bigint; options: StreamsPbModule.AppendReq.Options } | undefined;
    const events: ProposedEvent[] = [];
    let failure: WireError | undefined;
    call.on('data', (request: AppendReq) => {
      if (failure) return;
      const options = request.getOptions();
      if (!header) {
        if (!options) failure = wireError(status.INVALID_ARGUMENT, 'The first message of an append must carry its options');
        else {
          const streamId = streamNameOf(options.getStreamIdentifier());
          header = { streamId, expected: expectedOf(options, () => options.getRevision()), options };
        }
        return;
      }
      const proposed = request.getProposedMessage();
      if (!proposed) return;
      const event = proposedEvent(proposed);
      if (isWireError(event)) failure = event;
      else events.push(event);
    });
    call.on('end', () => {
      if (failure || !header) return callback(failure ?? wireError(status.INVALID_ARGUMENT, 'Empty append'));
      const { streamId, expected, options } = header;
      const outcome = log.append(streamId, expected, events);
      if (outcome.kind === 'deleted') return callback(streamDeletedError(streamId));
      if (outcome.kind === 'wrongExpectedVersion') {
        return callback(null, appendWrongExpectedVersion(options, outcome.current));
      }
      const success = new streamsPb.AppendResp.Success();
      if (outcome.current < 0n) success.setNoStream(new sharedPb.Empty());
      else success.setCurrentRevision(outcome.current.toString());
      if (outcome.position === undefined) success.setNoPosition(new sharedPb.Empty());
      else success.setPosition(withPosition(new streamsPb.AppendResp.Position(), outcome.position));
      callback(null, new streamsPb.AppendResp().setSuccess(success));
    });
  };

/** Append's own wrong-expected-version answer (a response, not an error), old and new fields. */
const appendWrongExpectedVersion = (options: StreamsPbModule.AppendReq.Options, current: bigint): AppendResp => {
  const empty = (): SharedPbModule.Empty => new sharedPb.Empty();
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (current < 0n) wrong.setCurrentNoStream(empty()).setNoStream2060(empty());
  else wrong.setCurrentRevision(current.toString()).setCurrentRevision2060(Number(current));
  if (options.hasAny()) wrong.setExpectedAny(empty()).setAny2060(empty());
  else if (options.hasStreamExists()) wrong.setExpectedStreamExists(empty()).setStreamExists2060(empty());
  else if (options.hasNoStream()) wrong.setExpectedNoStream(empty());
  else wrong.setExpectedRevision(options.getRevision()).setExpectedRevision2060(Number(options.getRevision()));
  return new streamsPb.AppendResp().setWrongExpectedVersion(wrong);
};

interface PackableDetail {
  serializeBinary(): Uint8Array;
}

/** google.rpc.Status with a packed detail, as Status.cs builds BatchAppend errors. */
const rpcStatus = (
  code: CodePbModule.Code,
  message: string,
  detail: PackableDetail,
  typeName: string,
): StatusPbModule.Status => {
  const details = new anyPb.Any();
  details.pack(detail.serializeBinary(), typeName);
  return new statusPb.Status().setCode(code).setMessage(message).setDetails(details);
};

const batchWrongExpectedVersion = (expected: bigint, current: bigint): StatusPbModule.Status => {
  const detail = new sharedPb.WrongExpectedVersion();
  if (current < 0n) detail.setCurrentNoStream(new emptyPb.Empty());
  else detail.setCurrentStreamRevision(current.toString());
  if (expected === EXPECTED_ANY) detail.setExpectedAny(new emptyPb.Empty());
  else if (expected === EXPECTED_NO_STREAM) detail.setExpectedNoStream(new emptyPb.Empty());
  else if (expected === EXPECTED_STREAM_EXISTS) detail.setExpectedStreamExists(new emptyPb.Empty());
  else detail.setExpectedStreamPosition(expected.toString());
  return rpcStatus(Code.ALREADY_EXISTS, 'WrongExpectedVersion', detail, 'event_store.client.WrongExpectedVersion');
};

const batchStreamDeleted = (streamId: string): StatusPbModule.Status => {
  const detail = new sharedPb.StreamDeleted().setStreamIdentifier(streamIdentifier(streamId));
  return rpcStatus(Code.NOT_FOUND, 'StreamDeleted', detail, 'event_store.client.StreamDeleted');
};

const batchBadRequest = (message: string): StatusPbModule.Status => {
  const detail = new sharedPb.BadRequest().setMessage(message);
  return rpcStatus(Code.INVALID_ARGUMENT, 'BadRequest', detail, 'event_store.client.BadRequest');
};

const batchSuccess = (current: bigint, position: bigint | undefined): StreamsPbModule.BatchAppendResp.Success => {
  const success = new streamsPb.BatchAppendResp.Success();
  if (current < 0n) success.setNoStream(new emptyPb.Empty());
  else success.setCurrentRevision(current.toString());
  if (position === undefined) success.setNoPosition(new emptyPb.Empty());
  else success.setPosition(withPosition(new sharedPb.AllStreamPosition(), position));
  return success;
};

interface PendingBatch {
  readonly streamId: string;
  readonly expected: bigint;
  readonly events: ProposedEvent[];
}

const handleBatchAppend =
  (log: Log) =>
  (call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void => {
    // A batch of one correlation id may span several requests; only its final one writes.
    const pending = new Map<string, PendingBatch>();
    let ended = false;
    call.on('cancelled', () => (ended = true));
    call.on('data', (request: BatchAppendReq) => {
      const correlationId = parseUuid(request.getCorrelationId());
      const options = request.getOptions();
      const respond = (streamId: string, fill: (resp: BatchAppendResp) => void): void => {
        const resp = new streamsPb.BatchAppendResp()
          .setCorrelationId(request.getCorrelationId())
          .setStreamIdentifier(streamIdentifier(streamId));
        fill(resp);
        if (!ended) call.write(resp);
      };
      if (options && !pending.has(correlationId)) {
        const streamId = streamNameOf(options.getStreamIdentifier());
        const expected = expectedOf(options, () => options.getStreamPosition());
        pending.set(correlationId, { streamId, expected, events: [] });
      }
      const batch = pending.get(correlationId);
      if (!batch) return;
      for (const message of request.getProposedMessagesList()) {
        const event = proposedEvent(message);
        if (isWireError(event)) {
          pending.delete(correlationId);
          return respond(batch.streamId, (r) => r.setError(batchBadRequest(event.details)));
        }
        batch.events.push(event);
      }
      if (!request.getIsFinal()) return;
      pending.delete(correlationId);
      const outcome = log.append(batch.streamId, batch.expected, batch.events);
      respond(batch.streamId, (resp) => {
        if (outcome.kind === 'deleted') resp.setError(batchStreamDeleted(batch.streamId));
        else if (outcome.kind === 'wrongExpectedVersion') {
          resp.setError(batchWrongExpectedVersion(batch.expected, outcome.current));
        }
        else resp.setSuccess(batchSuccess(outcome.current, outcome.position));
      });
    });
    call.on('end', () => {
      ended = true;
      call.end();
    });
  };

const handleTombstone =
  (log: Log) =>
  (call: ServerUnaryCall<TombstoneReq, TombstoneResp>, callback: sendUnaryData<TombstoneResp>): void => {
    const options = call.request.getOptions();
    if (!options) return callback(wireError(status.INVALID_ARGUMENT, 'Tombstone options are required'));
    const streamId = streamNameOf(options.getStreamIdentifier());
    const expected = expectedOf(options, () => options.getRevision());
    const outcome = log.tombstone(streamId, expected);
    if (outcome.kind === 'deleted') return callback(streamDeletedError(streamId));
    if (outcome.kind === 'wrongExpectedVersion') {
      return callback(wrongExpectedVersionError('Delete', streamId, expected, outcome.current));
    }
    const position = withPosition(new streamsPb.TombstoneResp.Position(), outcome.position!);
    callback(null, new streamsPb.TombstoneResp().setPosition(position));
  };

const unimplemented = (_call: unknown, callback: sendUnaryData<never>): void =>
  callback(wireError(status.UNIMPLEMENTED, 'Soft delete is not implemented by the EventStoreDB test double'));

// ---------------------------------------------------------------------------------------------
// The server.
// ---------------------------------------------------------------------------------------------

const STREAMS_SERVICE = 'event_store.client.streams.Streams';
const FEATURES_SERVICE = 'event_store.client.server_features.ServerFeatures';
/** The features ServerFeatures.cs attaches to each method it lists. */
const IMPLEMENTED_METHODS: readonly (readonly [service: string, method: string, features: readonly string[]])[] = [
  [STREAMS_SERVICE, 'Read', ['position', 'events']],
  [STREAMS_SERVICE, 'Append', []],
  [STREAMS_SERVICE, 'BatchAppend', ['deadline_duration']],
  [STREAMS_SERVICE, 'Tombstone', []],
  [FEATURES_SERVICE, 'GetSupportedMethods', []],
];

/** ServerFeatures.cs lists the methods the node serves, with lower-cased names. */
const supportedMethods = (): FeaturesPbModule.SupportedMethods => {
  const result = new featuresPb.SupportedMethods().setEventStoreServerVersion('0.0.0-test-double');
  for (const [service, method, features] of IMPLEMENTED_METHODS) {
    const supported = new featuresPb.SupportedMethod()
      .setServiceName(service.toLowerCase())
      .setMethodName(method.toLowerCase())
      .setFeaturesList([...features]);
    result.addMethods(supported);
  }
  return result;
};

const handleGetSupportedMethods = (
  _call: ServerUnaryCall<SharedPbModule.Empty, FeaturesPbModule.SupportedMethods>,
  callback: sendUnaryData<FeaturesPbModule.SupportedMethods>,
): void => callback(null, supportedMethods());

export async function startEventStoreDbDouble(): Promise<EventStoreDbDouble> {
  const log = new Log();
  const reads = new Set<ResponseWriter>();
  const server = new Server();
  server.addService(streamsGrpc.StreamsService, {
    read: handleRead(log, reads),
    append: handleAppend(log),
    batchAppend: handleBatchAppend(log),
    tombstone: handleTombstone(log),
    delete: unimplemented,
  });
  server.addService(featuresGrpc.ServerFeaturesService, { getSupportedMethods: handleGetSupportedMethods });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  let stopped = false;
  return {
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // Open subscriptions never finish on their own: end their loops, then drop the connections,
      // which is what a node going away looks like to a client.
      for (const read of [...reads]) read.close();
      server.forceShutdown();
    },
  };
}
