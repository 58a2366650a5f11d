// Streams.Read: reads of a stream or of $all, and the start of catch-up subscriptions.
import { status, type ServerWritableStream } from '@grpc/grpc-js';
import { streamDeletedError, wireError } from './errors.js';
import type { StoredEvent } from './events.js';
import { filterOf } from './filter.js';
import type { Log, LogPosition } from './log.js';
import { streamsPb, type ReadReq, type ReadResp, type StreamsPbModule } from './protos.js';
import { ResponseWriter } from './responseWriter.js';
import { allFeed, checkpointIntervalOf, runSubscription, streamFeed } from './subscriptions.js';
import { eventResponse, streamIdentifier, streamNameOf } from './wire.js';

const ReadOptions = streamsPb.ReadReq.Options;

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

export const handleRead = (log: Log, open: Set<ResponseWriter>) => (call: ServerWritableStream<ReadReq, ReadResp>): void => {
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
