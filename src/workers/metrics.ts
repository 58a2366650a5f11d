// GET /metrics with WORKERS > 1: whichever worker the scrape reaches answers the sum over every
// process of the machine (counters and histograms added, deployment-wide gauges their maximum:
// src/metrics/metrics.ts), so that counters never jump between workers from one scrape to the
// next. The worker asks the primary; the primary gathers a snapshot from each worker that serves
// and adds its own (it counts the callbacks and the projection lag).
import type { Worker } from 'node:cluster';
import type { Metrics, MetricsSnapshot } from '../metrics/metrics.js';
import type { ToPrimary } from './messages.js';

/** How long a scrape waits for the processes' snapshots; a process slower than this is left out. */
const SNAPSHOT_TIMEOUT_MS = 3_000;

interface Pending {
  readonly snapshots: MetricsSnapshot[];
  readonly resolve: () => void;
  waiting: number;
}

/** The primary's side: gathers snapshots from `workers` and itself. */
export class SnapshotGathering {
  private next = 0;
  private readonly pending = new Map<number, Pending>();

  async gather(workers: readonly Worker[], own: Metrics | undefined): Promise<MetricsSnapshot[]> {
    const id = this.next++;
    const snapshots: MetricsSnapshot[] = own ? [await own.snapshot()] : [];
    const asked = workers.filter((worker) => worker.isConnected());
    if (asked.length === 0) return snapshots;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.pending.set(id, { snapshots, resolve, waiting: asked.length });
      timer = setTimeout(resolve, SNAPSHOT_TIMEOUT_MS);
      for (const worker of asked) worker.send({ connector: 'snapshotWanted', id });
    });
    clearTimeout(timer);
    this.pending.delete(id);
    return snapshots;
  }

  received(id: number, snapshot: MetricsSnapshot): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    pending.snapshots.push(snapshot);
    if (--pending.waiting === 0) pending.resolve();
  }
}

/** A worker's side: asks the primary for every snapshot, and answers the primary's requests for its own. */
export class SnapshotAsking {
  private next = 0;
  private readonly pending = new Map<number, (snapshots: readonly MetricsSnapshot[]) => void>();
  /** This worker's metrics, once its service exists. */
  own: Metrics | undefined;

  constructor(private readonly send: (message: ToPrimary) => void) {}

  readonly everyProcess = (): Promise<readonly MetricsSnapshot[]> =>
    new Promise((resolve, reject) => {
      const id = this.next++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('the primary did not gather the metrics in time'));
      }, 2 * SNAPSHOT_TIMEOUT_MS);
      this.pending.set(id, (snapshots) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(snapshots);
      });
      this.send({ connector: 'scrape', id });
    });

  scraped(id: number, snapshots: readonly MetricsSnapshot[]): void {
    this.pending.get(id)?.(snapshots);
  }

  async wanted(id: number): Promise<void> {
    this.send({ connector: 'snapshot', id, snapshot: this.own ? await this.own.snapshot() : [] });
  }
}
