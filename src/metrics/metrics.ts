// Prometheus metrics (prom-client), served by `GET /metrics` on the management listener.
//
// One registry per service instance: tests run several services in one process, and prom-client's
// global default registry would mix their counts (and refuse a second metric of the same name).
// The default process metrics (CPU, memory, event loop, GC, handles) describe the process, not an
// instance, so they live in one registry per process, merged into every scrape.
//
// Labels are bounded by construction: route templates (never paths), statuses, outcome names.
// Never a state, offer id, tenant id, URL or anything a caller chose.
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Logger } from '../log.js';

const PREFIX = 'connector_';

// Seconds. HTTP handlers are milliseconds to a second; appends are sub-millisecond on the embedded
// store and milliseconds over the network; a callback attempt may run up to its 300 s timeout.
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const APPEND_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const CALLBACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export type Listener = 'management' | 'public';
export type Flow = 'verification' | 'issuance';

export interface Metrics {
  readonly http: {
    readonly requests: Counter<'listener' | 'method' | 'route' | 'status'>;
    readonly duration: Histogram<'listener' | 'method' | 'route' | 'status'>;
  };
  readonly flows: {
    readonly created: Counter<'flow'>;
    /** `status`: the spec's terminal status (FULFILLED, ISSUED, EXPIRED, ...). */
    readonly ended: Counter<'flow' | 'status'>;
  };
  readonly eventStore: {
    /** `outcome`: ok, wrong_expected_revision, stream_deleted, error. */
    readonly appendDuration: Histogram<'outcome'>;
  };
  readonly callbacks: {
    /** `outcome`: delivered, or the failure reason (http_status, timeout, network). */
    readonly attempts: Counter<'outcome'>;
    readonly attemptDuration: Histogram<'outcome'>;
    readonly retriesScheduled: Counter;
    /** `outcome`: delivered, or the abandon reason (retries_exhausted, no_callback_url, data_gone). */
    readonly deliveriesEnded: Counter<'outcome'>;
    readonly inFlight: Gauge;
    readonly pending: Gauge;
  };
  readonly projections: {
    readonly lagPositions: Gauge<'runner'>;
    readonly lagSeconds: Gauge<'runner'>;
  };
  /** For the trust-list fetcher: `source` names the configured list (bounded), `outcome` ok, not_modified or error. */
  readonly trustLists: { readonly fetches: Counter<'source' | 'outcome'> };
  /** For the status-list fetcher: `outcome` ok, not_modified or error. */
  readonly statusLists: { readonly fetches: Counter<'outcome'> };
  /** For the blob sweeper: `reason` shredded, expired, erased or unreferenced. */
  readonly blobs: { readonly removed: Counter<'reason'> };
  /**
   * Runs `refresh` before each scrape, for gauges read from elsewhere (read models, the store).
   * When it throws, `unknown` sets them to NaN: no value is better than a stale one.
   */
  refreshOnScrape(what: string, refresh: () => Promise<void> | void, unknown: () => void): void;
  /** The exposition in the Prometheus text format. */
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
  /** This process's figures, refreshed, for a scrape that sums the processes of one deployment on a machine. */
  snapshot(): Promise<MetricsSnapshot>;
}

export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

export interface MetricsOptions {
  /**
   * Every process's snapshot, this one's included: a scrape then answers their sum (with
   * WORKERS > 1 a worker asks the primary for them, src/workers/). Unset: this process alone.
   */
  readonly everyProcess?: () => Promise<readonly MetricsSnapshot[]>;
}

let perProcess: Registry | undefined;

const processMetrics = (): Registry => {
  if (perProcess === undefined) {
    perProcess = new Registry();
    collectDefaultMetrics({ register: perProcess });
  }
  return perProcess;
};

export const createMetrics = (log: Logger, options: MetricsOptions = {}): Metrics => {
  // Started with the first service, so GC and event-loop figures cover the whole run.
  const processRegistry = processMetrics();
  const registry = new Registry();
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name: PREFIX + name, help, labelNames, registers });
  // `max`: a figure of the whole deployment every process reads alike (a read model), not summed over them.
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = [], aggregator: 'sum' | 'max' = 'sum') =>
    new Gauge<L>({ name: PREFIX + name, help, labelNames, registers, aggregator });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name: PREFIX + name, help, labelNames, buckets, registers });

  const refreshers: { readonly what: string; readonly refresh: () => Promise<void> | void; readonly unknown: () => void }[] = [];
  /** Both registries as one, once every gauge read from elsewhere is refreshed. */
  const refreshed = async (): Promise<Registry> => {
    for (const { what, refresh, unknown } of refreshers) {
      try {
        await refresh();
      } catch (err) {
        unknown();
        log.warn('metrics refresh failed; its gauges are NaN in this scrape', { metrics: what, err });
      }
    }
    return Registry.merge([processRegistry, registry]);
  };
  const httpLabels = ['listener', 'method', 'route', 'status'] as const;
  return {
    http: {
      requests: counter('http_requests_total', 'HTTP requests answered, by listener, method, route template and status.', httpLabels),
      duration: histogram('http_request_duration_seconds', 'Time to answer an HTTP request, by listener, method, route template and status.', httpLabels, HTTP_BUCKETS),
    },
    flows: {
      created: counter('flows_created_total', 'Presentation requests (verification) and credential offers (issuance) created by this instance.', ['flow']),
      ended: counter('flows_ended_total', 'Flows this instance ended, by terminal status.', ['flow', 'status']),
    },
    eventStore: {
      appendDuration: histogram('eventstore_append_duration_seconds', 'Time of one append to the event store, by outcome.', ['outcome'], APPEND_BUCKETS),
    },
    callbacks: {
      attempts: counter('callback_attempts_total', 'Callback delivery attempts, by outcome.', ['outcome']),
      attemptDuration: histogram('callback_attempt_duration_seconds', 'Time of one callback attempt (the POST), by outcome.', ['outcome'], CALLBACK_BUCKETS),
      retriesScheduled: counter('callback_retries_scheduled_total', 'Failed callback attempts after which another attempt was scheduled.'),
      deliveriesEnded: counter('callback_deliveries_ended_total', 'Callback deliveries this instance ended, by outcome.', ['outcome']),
      inFlight: gauge('callback_attempts_in_flight', 'Callback attempts this instance is running now.'),
      pending: gauge('callback_deliveries_pending', 'Callback deliveries recorded and not yet ended, in the whole deployment (read model).', [], 'max'),
    },
    projections: {
      lagPositions: gauge(
        'projection_lag_positions',
        'How far the runner checkpoint is behind the end of $all, in commit positions: events on the embedded store, transaction-log bytes on EventStoreDB.',
        ['runner'],
        'max',
      ),
      lagSeconds: gauge('projection_lag_seconds', 'Age of the oldest event in $all the runner has not applied yet; 0 when caught up.', ['runner'], 'max'),
    },
    trustLists: { fetches: counter('trust_list_fetches_total', 'Trusted list downloads, by list and outcome.', ['source', 'outcome']) },
    statusLists: { fetches: counter('status_list_fetches_total', 'Status list downloads, by outcome.', ['outcome']) },
    blobs: { removed: counter('blob_files_removed_total', 'Blob files removed (their content key destroyed first where they had one), by reason.', ['reason']) },
    refreshOnScrape(what, refresh, unknown) {
      refreshers.push({ what, refresh, unknown });
    },
    async scrape() {
      const merged = options.everyProcess ? AggregatorRegistry.aggregate([...(await options.everyProcess())]) : await refreshed();
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
    snapshot: async () => (await refreshed()).getMetricsAsJSON(),
  };
};
