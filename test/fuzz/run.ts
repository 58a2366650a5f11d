// The robustness suite (`npm run fuzz`): hostile bodies to every route of both listeners, taken
// from the service's own route table, against a real service on loopback over a fresh store.
// Fails on any 5xx, any answer the OpenAPI document does not describe, any management API error
// that is not problem+json, any wallet-route error that is not JSON, any event a rejected request
// appended, and anything accepted that the read models cannot apply (a stall or a quarantined
// event). Bounded by FUZZ_SECONDS (default 60) and FUZZ_MAX_REQUESTS; FUZZ_SEED repeats a run.
import { randomUUID } from 'node:crypto';
import type { RouteEntry } from '../../src/app/apps.js';
import { formatPosition, START, type EventStore, type Position } from '../../src/eventstore/port.js';
import { startTestService, type TestService } from '../support/service.js';
import { DC_API_PRESENTATION, hostileBody, Random, SAMPLES, type Body } from './bodies.js';

const seconds = Number(process.env['FUZZ_SECONDS'] ?? 60);
const maxRequests = Number(process.env['FUZZ_MAX_REQUESTS'] ?? 100_000);
const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31);

const json = { 'Content-Type': 'application/json' };

/**
 * Routes whose error answer may still record an outcome: a response the connector cannot decrypt
 * ends its session as PROCESSING_ERROR (the specification's state table), though the wallet is
 * told 400. Anything else a rejected request appends is a failure.
 */
const OUTCOME_ROUTES = new Set(['POST /oidc4vp/:state/response']);

interface Target {
  readonly listener: 'management' | 'public';
  readonly route: RouteEntry;
}

/**
 * Real identifiers to put in path parameters half of the time, so requests reach existing things:
 * a state is a request-URI session's three times in four, else one of a few DC API sessions' (an
 * answer that gets through the body's validation ends one).
 */
const realIds = async (s: TestService): Promise<Record<string, readonly string[]>> => {
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> =>
    (await (await s.management(path, { method: 'POST', headers: json, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
  const presentation = String((await post('/oidc4vp', SAMPLES['POST /oidc4vp']))['state']);
  const dcApi = await Promise.all([1, 2, 3, 4].map(async () => String((await post('/oidc4vp', DC_API_PRESENTATION))['state'])));
  const offer = await post('/offers', SAMPLES['POST /offers']);
  const apiKey = await post('/api-keys', SAMPLES['POST /api-keys']);
  return {
    state: [...Array<string>(12).fill(presentation), ...dcApi],
    offer_id: [String(offer['offer_id'])],
    id: [String(apiKey['id'])],
    credential_configuration_id: ['pid'],
    revision: ['1'],
  };
};

const pathFor = (random: Random, template: string, ids: Record<string, readonly string[]>): string =>
  template.replace(/:([A-Za-z_]+)/g, (_, name: string) =>
    encodeURIComponent(random.next() < 0.5 && ids[name] !== undefined ? random.pick(ids[name]!) : random.pick(['x', randomUUID(), '0', '%00', 'a'.repeat(300)])),
  );

const sampleFor = (route: RouteEntry): unknown =>
  SAMPLES[`${route.method} ${route.path}`] ??
  (route.path.endsWith('/search') ? SAMPLES['search'] : route.path.endsWith('/annotations') ? SAMPLES['PUT annotations'] : route.path.endsWith('/labels') ? SAMPLES['PUT labels'] : route.path.endsWith('/export') ? SAMPLES['export'] : undefined);

const head = async (store: EventStore): Promise<Position> => (await store.readAll({ direction: 'backwards', maxCount: 1 }))[0]?.position ?? START;

/** What is wrong with one answer, or undefined. */
const judge = async (target: Target, response: Response): Promise<string | undefined> => {
  const text = await response.text();
  if (response.status >= 500) return `${response.status}: ${text.slice(0, 200)}`;
  if (response.status < 400) return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (target.listener === 'management' && type !== 'application/problem+json') return `error ${response.status} as ${type}`;
  try {
    JSON.parse(text);
  } catch {
    return `error ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`;
  }
  return undefined;
};

const main = async (): Promise<void> => {
  const random = new Random(seed);
  // Long lifetimes: nothing expires (and appends) in the background while the suite runs.
  const s = await startTestService({ env: { OFFER_TTL_SECONDS: '86400', PRESENTATION_EXPIRES_IN: '3600' } });
  const failures: string[] = [];
  let sent = 0;
  let quarantined = 0;
  try {
    const ids = await realIds(s);
    const routes: Target[] = [
      ...s.service.routes.management.map((route) => ({ listener: 'management' as const, route })),
      ...s.service.routes.public.map((route) => ({ listener: 'public' as const, route })),
    ];
    // Routes with a sample body to mutate are where the deeper code is: four times as likely.
    const targets = routes.flatMap((target) => Array<Target>(sampleFor(target.route) === undefined ? 1 : 4).fill(target));
    console.log(`fuzz: seed ${seed}, ${routes.length} routes, up to ${seconds} s or ${maxRequests} requests`);
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline && sent < maxRequests && failures.length < 20) {
      const target = random.pick(targets);
      const body: Body = hostileBody(random, sampleFor(target.route));
      const path = pathFor(random, target.route.path, ids);
      const requestId = randomUUID();
      const headers: Record<string, string> = { 'X-Request-Id': requestId, ...(body.contentType ? { 'Content-Type': body.contentType } : {}) };
      const init: RequestInit = { method: target.route.method, headers, ...(target.route.method === 'GET' ? {} : { body: body.bytes }) };
      const before = await head(s.service.store);
      const what = `${target.route.method} ${target.route.path} (${body.name})`;
      let response: Response;
      try {
        // The test helpers check every answer against the OpenAPI document and throw when it does not describe it.
        response = target.listener === 'management' ? await s.management(path, init) : await s.wallet(path, init);
      } catch (err) {
        failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      } finally {
        sent += 1;
      }
      const wrong = await judge(target, response);
      if (wrong) failures.push(`${what}: ${wrong}`);
      const status = s.service.runner.status();
      if (status.failing !== null) failures.push(`${what}: the read models stopped on what it wrote (${status.failing})`);
      if (status.quarantine.total > quarantined) failures.push(`${what}: a projection set aside what it wrote`);
      quarantined = status.quarantine.total;
      if (response.status >= 400 && !OUTCOME_ROUTES.has(`${target.route.method} ${target.route.path}`)) {
        const appended = await s.service.store.readAll({ fromPosition: before, maxCount: 100 });
        const caused = appended.filter((e) => formatPosition(e.position) !== formatPosition(before) && (e.metadata as { requestId?: unknown } | null)?.requestId === requestId);
        if (caused.length > 0) failures.push(`${what}: rejected with ${response.status} but appended ${caused.map((e) => e.type).join(', ')}`);
      }
    }
  } finally {
    await s.cleanup();
  }
  console.log(`fuzz: ${sent} requests, ${failures.length} failures`);
  for (const failure of failures) console.log(`  ${failure}`);
  if (failures.length > 0) {
    console.log(`fuzz: repeat with FUZZ_SEED=${seed}`);
    process.exitCode = 1;
  }
};

await main();
