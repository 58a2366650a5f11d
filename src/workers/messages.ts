// What the primary and its workers tell each other over the node:cluster IPC channel. Every
// message carries `connector`, so nothing else on the channel is taken for one.
import type { MetricsSnapshot } from '../metrics/metrics.js';
import type { RunnerStatus } from '../readside/readModels.js';
import type { ListenUrls } from '../app/service.js';

/** The primary's read models as they are now, and whether the primary has started (workers may serve). */
export interface ReadModelsNews {
  readonly connector: 'readModels';
  readonly status: RunnerStatus;
  readonly started: boolean;
}

export type ToWorker =
  | ReadModelsNews
  /** The primary gathers every process's metrics for a scrape: the worker answers with a `snapshot`. */
  | { readonly connector: 'snapshotWanted'; readonly id: number }
  /** Every process's snapshot, for the worker's `scrape` of the same id. */
  | { readonly connector: 'scraped'; readonly id: number; readonly snapshots: readonly MetricsSnapshot[] };

export type ToPrimary =
  /** A worker has begun: it is answered with the read models' news. */
  | { readonly connector: 'hello' }
  /** The worker's appends are durable up to this position (formatPosition). */
  | { readonly connector: 'appended'; readonly position: string }
  /** A request waits for the read models to reach this position: news is wanted once they do. */
  | { readonly connector: 'waitFor'; readonly position: string }
  /** The worker serves both listeners here. */
  | { readonly connector: 'listening'; readonly urls: ListenUrls }
  /** GET /metrics reached this worker: it wants every process's snapshot. */
  | { readonly connector: 'scrape'; readonly id: number }
  | { readonly connector: 'snapshot'; readonly id: number; readonly snapshot: MetricsSnapshot };

const isMessage = (message: unknown): message is { connector: string } =>
  typeof message === 'object' && message !== null && typeof (message as { connector?: unknown }).connector === 'string';

export const isToWorker = (message: unknown): message is ToWorker =>
  isMessage(message) && ['readModels', 'snapshotWanted', 'scraped'].includes(message.connector);

export const isToPrimary = (message: unknown): message is ToPrimary =>
  isMessage(message) && ['hello', 'appended', 'waitFor', 'listening', 'scrape', 'snapshot'].includes(message.connector);

/**
 * `work` at most once per turn of the event loop, however often it is asked for in the turn, once
 * the turn's own work is done: appends acknowledged by one group commit, or events applied in one
 * transaction, make one message.
 */
export const oncePerTurn = (work: () => void): (() => void) => {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      work();
    });
  };
};
