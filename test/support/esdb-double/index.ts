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
import { Server, ServerCredentials, status, type sendUnaryData } from '@grpc/grpc-js';
import { handleAppend, handleBatchAppend } from './append.js';
import { wireError } from './errors.js';
import { handleGetSupportedMethods } from './features.js';
import { Log } from './log.js';
import { featuresGrpc, streamsGrpc } from './protos.js';
import { handleRead } from './read.js';
import type { ResponseWriter } from './responseWriter.js';
import { handleTombstone } from './tombstone.js';

export interface EventStoreDbDouble {
  /** `esdb://127.0.0.1:PORT?tls=false` */
  readonly connectionString: string;
  stop(): Promise<void>;
}

const unimplemented = (_call: unknown, callback: sendUnaryData<never>): void =>
  callback(wireError(status.UNIMPLEMENTED, 'Soft delete is not implemented by the EventStoreDB test double'));

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
