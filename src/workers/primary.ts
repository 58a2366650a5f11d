// The primary over WORKERS worker processes (node:cluster; docs/operations.md, Process model).
// Workers share both listening sockets and serve every request. The primary serves none: it keeps
// the read models (the projection runner) and runs the work that must happen once on the machine
// (callback recording and delivery, expiry and purge schedulers), then supervises: a worker that
// dies is logged and started again after a backoff; SIGTERM stops the workers, then itself.
//
// Over the IPC channel the primary sends the workers the runner's status (its checkpoint, for
// read-your-writes, and what readiness reports: news.ts), and each worker sends how far its
// appends are durable, which wakes the primary's subscriptions at once (messages.ts).
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/config.js';
import { parsePosition, type EventStore } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ProjectionRunner } from '../readside/projectionRunner.js';
import { startService, type ListenUrls } from '../app/service.js';
import { isToPrimary, oncePerTurn, type ToPrimary } from './messages.js';
import { SnapshotGathering } from './metrics.js';
import { ReadModelsNewsDesk } from './news.js';

/** The first restart's delay; each crash in a row doubles it, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** A worker that ran this long before dying starts the backoff over. */
const STABLE_MS = 60_000;
/** Beyond SHUTDOWN_TIMEOUT_MS, how long a stopping worker has to exit before it is killed. */
const EXIT_GRACE_MS = 5_000;
/** How stale the checkpoint a worker knows may get, at most; never above a quarter of READINESS_MAX_LAG_MS. */
const HEARTBEAT_MS = 1_000;

interface Slot {
  worker: Worker | undefined;
  /** The worker has said it serves. */
  listening: boolean;
  forkedAt: number;
  crashes: number;
  restart: NodeJS.Timeout | undefined;
}

class Supervisor {
  private readonly slots: Slot[];
  private news: ReadModelsNewsDesk | undefined;
  private store: EventStore | undefined;
  private started = false;
  /** Every worker of the first start has listened: from now on a worker that dies is restarted. */
  private serving = false;
  private stopping = false;
  /** Settles once every worker of the first start listens, or one of them has died first. */
  private readonly firstStart: Promise<ListenUrls>;
  private firstStartSettled: { resolve: (urls: ListenUrls) => void; reject: (err: Error) => void } | undefined;
  private readonly changed = oncePerTurn(() => {
    // Once stopping, the read models may be closed: the workers are stopping too.
    if (!this.stopping) this.news?.changed();
  });
  private readonly snapshots = new SnapshotGathering();
  private metrics: Metrics | undefined;

  constructor(
    count: number,
    private readonly config: Config,
    private readonly log: Logger,
  ) {
    this.slots = Array.from({ length: count }, () => ({ worker: undefined, listening: false, forkedAt: 0, crashes: 0, restart: undefined }));
    this.firstStart = new Promise((resolve, reject) => (this.firstStartSettled = { resolve, reject }));
    this.firstStart.catch(() => undefined);
  }

  /** Forks the workers once the read models are open; they answer probes while the primary catches up. */
  begin(runner: ProjectionRunner, store: EventStore): void {
    this.store = store;
    this.news = new ReadModelsNewsDesk(
      () => runner.status(),
      () => this.started,
      () => this.slots.flatMap((slot) => (slot.worker ? [slot.worker] : [])),
    );
    runner.onChange(this.changed);
    for (const slot of this.slots) this.fork(slot);
  }

  /** The primary has started: workers build their features and serve; resolves once all of them listen. */
  async serve(metrics: Metrics): Promise<ListenUrls> {
    this.metrics = metrics;
    this.started = true;
    this.changed();
    this.news?.startHeartbeat(Math.max(10, Math.min(HEARTBEAT_MS, this.config.readinessMaxLagMs / 4)));
    return this.firstStart;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.news?.stop();
    const running = this.slots.flatMap((slot) => {
      clearTimeout(slot.restart);
      return slot.worker && !slot.worker.isDead() ? [slot.worker] : [];
    });
    await Promise.all(running.map((worker) => this.stopWorker(worker)));
  }

  private stopWorker(worker: Worker): Promise<void> {
    return new Promise((resolve) => {
      const kill = setTimeout(() => {
        this.log.warn('worker did not stop in time, killing it', { worker: worker.id, pid: worker.process.pid });
        worker.process.kill('SIGKILL');
      }, this.config.shutdownTimeoutMs + EXIT_GRACE_MS);
      worker.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      worker.process.kill('SIGTERM');
    });
  }

  private fork(slot: Slot): void {
    const worker = cluster.fork();
    slot.worker = worker;
    slot.listening = false;
    slot.forkedAt = Date.now();
    slot.restart = undefined;
    this.log.info('worker started', { worker: worker.id, pid: worker.process.pid });
    worker.on('message', (message: unknown) => {
      if (isToPrimary(message)) this.receive(slot, worker, message);
    });
    worker.on('exit', (code, signal) => this.exited(slot, worker, code, signal));
  }

  private receive(slot: Slot, worker: Worker, message: ToPrimary): void {
    switch (message.connector) {
      case 'hello':
        this.news?.to(worker);
        return;
      case 'waitFor': {
        // The worker appended it, durably: its announcement is still on the way.
        const position = parsePosition(message.position);
        if (!position) return;
        this.store?.appendedElsewhere?.(position);
        this.news?.want(worker, position);
        return;
      }
      case 'appended': {
        const position = parsePosition(message.position);
        if (position) this.store?.appendedElsewhere?.(position);
        return;
      }
      case 'scrape':
        void this.scrape(worker, message.id);
        return;
      case 'snapshot':
        this.snapshots.received(message.id, message.snapshot);
        return;
      case 'listening':
        this.log.info('worker listening', { worker: worker.id, pid: worker.process.pid });
        slot.listening = true;
        if (!this.serving && this.slots.every((s) => s.listening)) {
          this.serving = true;
          this.firstStartSettled?.resolve(message.urls);
        }
        return;
    }
  }

  private exited(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker === worker) {
      slot.worker = undefined;
      slot.listening = false;
    }
    if (this.stopping) return;
    const fields = { worker: worker.id, pid: worker.process.pid, code, signal };
    if (!this.serving) {
      // A worker that cannot start the first time (a port in use, say) fails the start.
      this.log.error('worker exited during the start', fields);
      this.firstStartSettled?.reject(new Error(`worker ${worker.id} exited (code ${code}, signal ${signal}) during the start`));
      return;
    }
    if (Date.now() - slot.forkedAt >= STABLE_MS) slot.crashes = 0;
    slot.crashes++;
    const restartInMs = Math.min(FIRST_BACKOFF_MS * 2 ** (slot.crashes - 1), MAX_BACKOFF_MS);
    this.log.error('worker exited, restarting it', { ...fields, restartInMs });
    slot.restart = setTimeout(() => this.fork(slot), restartInMs);
  }

  /** Every serving process's snapshot, the primary's own included, to the worker that was scraped. */
  private async scrape(worker: Worker, id: number): Promise<void> {
    const serving = this.slots.flatMap((slot) => (slot.worker && slot.listening ? [slot.worker] : []));
    const snapshots = await this.snapshots.gather(serving, this.metrics);
    if (worker.isConnected()) worker.send({ connector: 'scraped', id, snapshots });
  }

}

/**
 * The primary: starts the service without listeners (read models, background work), its workers
 * beside it, and resolves once every worker serves; `stop` stops the workers, then the rest.
 */
export const startPrimary = async (config: Config, log: Logger): Promise<{ stop(): Promise<void> }> => {
  const supervisor = new Supervisor(config.workers, config, log);
  let service;
  try {
    service = await startService(config, log, { serve: false, opened: (runner, store) => supervisor.begin(runner, store) });
  } catch (err) {
    await supervisor.stop();
    throw err;
  }
  try {
    const urls = await supervisor.serve(service.context.metrics);
    log.info('listening', { ...urls, publicUrl: config.publicUrl, workers: config.workers });
  } catch (err) {
    await supervisor.stop();
    await service.stop();
    throw err;
  }
  return {
    stop: async () => {
      await supervisor.stop();
      await service.stop();
    },
  };
};
