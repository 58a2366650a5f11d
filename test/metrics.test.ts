// GET /metrics: the Prometheus text format, read by an independent strict parser; the counters a
// verification flow and an issuance flow move; callback retries; bounded labels that never carry
// a path, state, offer id or claim value; one registry per service instance; projection lag.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/log.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { observeProjectionLag } from '../src/metrics/projectionLag.js';
import { openRunner, openStore } from './support/readmodels.js';
import { parsePrometheusText, sampleValue, type Family } from './support/prometheus.js';
import { startTestService, type TestService } from './support/service.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, PID_CLAIMS } from './support/wallet/issuanceChecks.js';
import { answer } from './support/wallet/presentation.js';

let h: VerificationHarness;

test.before(async () => {
  h = await startVerificationHarness({ CALLBACK_RETRY_SCHEDULE: '0,100ms,200ms', CALLBACK_TIMEOUT_SECONDS: '1' });
});

test.after.always(async () => {
  await h?.close();
});

const scrapeText = async (service: TestService = h.service): Promise<{ response: Response; text: string }> => {
  const response = await service.management('/metrics', { key: null });
  return { response, text: await response.text() };
};

const scrape = async (service: TestService = h.service): Promise<Map<string, Family>> => parsePrometheusText((await scrapeText(service)).text);

/** Scrapes until `check` holds (bounded), returning the last reading. */
const scrapeUntil = async (check: (families: Map<string, Family>) => boolean): Promise<Map<string, Family>> => {
  let families = await scrape();
  for (let i = 0; i < 400 && !check(families); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    families = await scrape();
  }
  return families;
};

const CONNECTOR_FAMILIES = [
  'connector_http_requests_total',
  'connector_http_request_duration_seconds',
  'connector_flows_created_total',
  'connector_flows_ended_total',
  'connector_eventstore_append_duration_seconds',
  'connector_callback_attempts_total',
  'connector_callback_attempt_duration_seconds',
  'connector_callback_retries_scheduled_total',
  'connector_callback_deliveries_ended_total',
  'connector_callback_attempts_in_flight',
  'connector_callback_deliveries_pending',
  'connector_projection_lag_positions',
  'connector_projection_lag_seconds',
  'connector_trust_list_fetches_total',
  'connector_status_list_fetches_total',
];

test.serial('GET /metrics answers without an API key, in the Prometheus text format, with process metrics and every connector family', async (t) => {
  const { response, text } = await scrapeText();
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  t.is(response.headers.get('cache-control'), 'no-store');
  const families = parsePrometheusText(text);
  for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
    t.true(families.has(name), name);
  }
  for (const name of CONNECTOR_FAMILIES) t.true(families.has(name), name);
  t.is(families.get('connector_flows_ended_total')?.type, 'counter');
  t.is(families.get('connector_http_request_duration_seconds')?.type, 'histogram');
  t.is(families.get('connector_projection_lag_seconds')?.type, 'gauge');
  t.is(sampleValue(families, 'connector_projection_lag_positions', { runner: 'read_models' }), 0);
  t.is(sampleValue(families, 'connector_callback_deliveries_pending'), 0);
  // The parser is strict: it is not what makes these pass.
  t.throws(() => parsePrometheusText('# TYPE a counter\na{x="1"} 1\na{x="1"} 2\n'), { message: /twice/ });
  t.throws(() => parsePrometheusText('b 1\n'), { message: /no declared family/ });
});

test.serial('a verification flow and an issuance flow move the flow, HTTP, callback and event-store metrics; labels carry no identifiers', async (t) => {
  const before = await scrape();
  const delta = (after: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
    sampleValue(after, name, labels) - sampleValue(before, name, labels);

  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done' }, 'same-device');
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  const offer = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
  const wallet = await IssuanceWallet.create(h.service.config.publicUrl, h.service.service.publicListenUrl);
  await wallet.receive(offer.credential_offer_uri);

  // Callbacks: FULFILLED, OFFER_CREATED and ISSUED.
  const after = await scrapeUntil((f) => sampleValue(f, 'connector_callback_deliveries_ended_total', { outcome: 'delivered' }) - sampleValue(before, 'connector_callback_deliveries_ended_total', { outcome: 'delivered' }) >= 3);
  t.is(delta(after, 'connector_flows_created_total', { flow: 'verification' }), 1);
  t.is(delta(after, 'connector_flows_ended_total', { flow: 'verification', status: 'FULFILLED' }), 1);
  t.is(delta(after, 'connector_flows_created_total', { flow: 'issuance' }), 1);
  t.is(delta(after, 'connector_flows_ended_total', { flow: 'issuance', status: 'ISSUED' }), 1);
  t.is(delta(after, 'connector_callback_deliveries_ended_total', { outcome: 'delivered' }), 3);
  t.is(delta(after, 'connector_callback_attempts_total', { outcome: 'delivered' }), 3);
  t.is(delta(after, 'connector_callback_attempt_duration_seconds_count', { outcome: 'delivered' }), 3);
  t.true(delta(after, 'connector_eventstore_append_duration_seconds_count', { outcome: 'ok' }) >= 8);

  const http = (listener: string, method: string, route: string, status: string) =>
    delta(after, 'connector_http_requests_total', { listener, method, route, status });
  t.is(http('management', 'POST', '/oidc4vp', '201'), 1);
  t.is(http('management', 'POST', '/offers', '201'), 1);
  t.is(http('public', 'GET', '/oidc4vp/:state/request', '200'), 1);
  t.is(http('public', 'POST', '/oidc4vp/:state/response', '200'), 1);
  t.is(http('public', 'POST', '/oidc4vci/token', '200'), 1);
  t.is(http('public', 'POST', '/oidc4vci/credential', '200'), 1);
  t.is(delta(after, 'connector_http_request_duration_seconds_count', { listener: 'public', method: 'POST', route: '/oidc4vci/credential', status: '200' }), 1);

  const { text } = await scrapeText();
  for (const secret of [created.state, offer.offer_id, encodeURIComponent(created.state), 'Erika', 'Mustermann']) t.false(text.includes(secret), secret);
  const routes = new Set(after.get('connector_http_requests_total')!.samples.map((s) => s.labels['route']));
  t.true([...routes].every((route) => route === 'none' || (route?.startsWith('/') && !/[A-Za-z0-9_-]{40,}/.test(route))), [...routes].join(' '));
});

test.serial('a failed callback attempt is counted by its reason, with the retry it schedules', async (t) => {
  const before = await scrape();
  const delta = (after: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
    sampleValue(after, name, labels) - sampleValue(before, name, labels);
  h.receiver.respond = (_request, count) => (count === 0 ? { status: 503 } : { status: 200 });
  try {
    await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    // The gauges follow the delivery's end a moment later (the recorder's next scan): waited for, bounded.
    const after = await scrapeUntil(
      (f) =>
        delta(f, 'connector_callback_deliveries_ended_total', { outcome: 'delivered' }) >= 1 &&
        sampleValue(f, 'connector_callback_deliveries_pending') === 0 &&
        sampleValue(f, 'connector_callback_attempts_in_flight') === 0,
    );
    t.is(delta(after, 'connector_callback_attempts_total', { outcome: 'http_status' }), 1);
    t.is(delta(after, 'connector_callback_attempt_duration_seconds_count', { outcome: 'http_status' }), 1);
    t.is(delta(after, 'connector_callback_retries_scheduled_total'), 1);
    t.is(delta(after, 'connector_callback_attempts_total', { outcome: 'delivered' }), 1);
    t.is(delta(after, 'connector_callback_deliveries_ended_total', { outcome: 'delivered' }), 1);
    t.is(sampleValue(after, 'connector_callback_deliveries_pending'), 0);
    t.is(sampleValue(after, 'connector_callback_attempts_in_flight'), 0);
  } finally {
    h.receiver.respond = () => ({ status: 200 });
  }
});

test.serial('requests no route matched are labelled none, also a management request refused before routing', async (t) => {
  const before = await scrape();
  const unknownPath = `/oidc4vp-${randomUUID()}`;
  t.is((await h.service.wallet(unknownPath)).status, 404);
  t.is((await h.service.management('/tenant', { key: null })).status, 401);
  const after = await scrape();
  const delta = (labels: Record<string, string>) =>
    sampleValue(after, 'connector_http_requests_total', labels) - sampleValue(before, 'connector_http_requests_total', labels);
  t.is(delta({ listener: 'public', method: 'GET', route: 'none', status: '404' }), 1);
  t.is(delta({ listener: 'management', method: 'GET', route: 'none', status: '401' }), 1);
  t.false((await scrapeText()).text.includes(unknownPath));
});

test('each service instance counts into its own registry', async (t) => {
  const other = await startTestService();
  try {
    const health = (families: Map<string, Family>) =>
      sampleValue(families, 'connector_http_requests_total', { listener: 'public', method: 'GET', route: '/health', status: '200' });
    const mineBefore = health(await scrape());
    for (let i = 0; i < 3; i++) t.is((await other.wallet('/health')).status, 200);
    t.is(health(await scrape(other)), 3);
    t.is(health(await scrape()), mineBefore);
  } finally {
    await other.cleanup();
  }
});

test('projection lag: events and age of what the runner has not applied, 0 once caught up, NaN when the store cannot say', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lag-'));
  const store = await openStore(dir);
  try {
    const metrics = createMetrics(silentLogger);
    const runner = await openRunner(store, join(dir, 'rm.sqlite'));
    observeProjectionLag(metrics, store, runner, 'test');
    for (let i = 0; i < 3; i++) await store.append(`thing-${i}`, [{ id: randomUUID(), type: 'ThingHappened', data: {} }], 'no_stream');
    const behind = parsePrometheusText((await metrics.scrape()).body);
    t.is(sampleValue(behind, 'connector_projection_lag_positions', { runner: 'test' }), 3);
    const age = sampleValue(behind, 'connector_projection_lag_seconds', { runner: 'test' });
    t.true(Number.isFinite(age) && age >= 0);

    runner.start();
    await runner.whenCaughtUp();
    const caughtUp = parsePrometheusText((await metrics.scrape()).body);
    t.is(sampleValue(caughtUp, 'connector_projection_lag_positions', { runner: 'test' }), 0);
    t.is(sampleValue(caughtUp, 'connector_projection_lag_seconds', { runner: 'test' }), 0);
    await runner.close();

    await store.close();
    const unknown = parsePrometheusText((await metrics.scrape()).body);
    t.true(Number.isNaN(sampleValue(unknown, 'connector_projection_lag_positions', { runner: 'test' })));
    t.true(Number.isNaN(sampleValue(unknown, 'connector_projection_lag_seconds', { runner: 'test' })));
  } finally {
    await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
});
