// A worker process (WORKERS > 1, src/workers/primary.ts): serves both listeners over the shared
// event store, reading the read models the primary keeps. It appends to the store itself (SQLite
// WAL locking, or its own EventStoreDB client) and tells the primary how far its appends are
// durable, so the primary's projections and callbacks see them without waiting for a poll.
import { isRight } from 'fp-ts/lib/Either.js';
import type { Config } from '../config/config.js';
import { readModelsFile } from '../eventstore/open.js';
import { comparePositions, formatPosition, START, type EventStore, type Position } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { startWorkerService, type Service } from '../app/service.js';
import { FollowedReadModels } from './followedReadModels.js';
import { isToWorker, oncePerTurn, type ReadModelsNews, type ToPrimary } from './messages.js';
import { SnapshotAsking } from './metrics.js';

/** The store, telling `appended` the position of every append and tombstone it acknowledges. */
const announcing = (store: EventStore, appended: (position: Position) => void): EventStore => ({
  async append(streamId, events, expectedRevision) {
    const result = await store.append(streamId, events, expectedRevision);
    if (isRight(result)) appended(result.right.position);
    return result;
  },
  readStream: (streamId, options) => store.readStream(streamId, options),
  readAll: (options) => store.readAll(options),
  subscribeToAll: (options) => store.subscribeToAll(options),
  async tombstone(streamId, expectedRevision) {
    const result = await store.tombstone(streamId, expectedRevision);
    if (isRight(result)) appended(result.right);
    return result;
  },
  close: () => store.close(),
});

export const startWorker = async (config: Config, log: Logger): Promise<Service<FollowedReadModels>> => {
  const send = (message: ToPrimary): void => void process.send?.(message);
  let latest: ReadModelsNews | undefined;
  let readModels: FollowedReadModels | undefined;
  const snapshots = new SnapshotAsking(send);
  const answered = new Promise<ReadModelsNews>((resolve) => {
    process.on('message', (message: unknown) => {
      if (!isToWorker(message)) return;
      switch (message.connector) {
        case 'readModels':
          latest = message;
          readModels?.update(message);
          resolve(message);
          return;
        case 'snapshotWanted':
          void snapshots.wanted(message.id);
          return;
        case 'scraped':
          snapshots.scraped(message.id, message.snapshots);
          return;
      }
    });
  });
  send({ connector: 'hello' });
  const first = await answered;

  let durable = START;
  const announce = oncePerTurn(() => send({ connector: 'appended', position: formatPosition(durable) }));
  const service = await startWorkerService(config, log, {
    open: async () =>
      (readModels = FollowedReadModels.open(readModelsFile(config), latest ?? first, (position) => send({ connector: 'waitFor', position: formatPosition(position) }))),
    prepare: (opened) => opened.whenStarted(),
    // A worker restarted after the service has started listens only once it can serve: the other
    // workers answer meanwhile. At the first start, every worker answers probes from the outset.
    early: !first.started,
    store: (store) =>
      announcing(store, (position) => {
        if (comparePositions(position, durable) > 0) durable = position;
        announce();
      }),
    listening: (urls) => send({ connector: 'listening', urls }),
    metrics: { everyProcess: snapshots.everyProcess },
  });
  snapshots.own = service.context.metrics;
  return service;
};
