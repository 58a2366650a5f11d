// Hostile input at the edge: JSON shape limits on every route, error bodies that echo only
// bounded excerpts, 405 for unknown methods, RateLimit headers on errors. Serial: each test
// compares the store's head before and after a request.
import test from 'ava';
import { JSON_LIMITS } from '../src/http/boundedJson.js';
import { EXCERPT_CHARS, MAX_FIELD_ERRORS } from '../src/http/excerpt.js';
import { createLogger } from '../src/log.js';
import { formatPosition, START } from '../src/eventstore/port.js';
import { startTestService, type TestService } from './support/service.js';

const json = { 'Content-Type': 'application/json' };
const logLines: string[] = [];
let service: TestService;

test.before(async () => {
  service = await startTestService({ log: createLogger({ level: 'debug', write: (line) => logLines.push(line) }) });
});
test.after.always(async () => {
  await service?.cleanup();
});

const nested = (depth: number, leaf = '1'): string => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

const head = async (): Promise<string> => {
  const [last] = await service.service.store.readAll({ direction: 'backwards', maxCount: 1 });
  return formatPosition(last?.position ?? START);
};

/** Sends a request and checks it is refused (4xx) without appending anything. */
const refused = async (t: import('ava').ExecutionContext, send: () => Promise<Response>): Promise<Response> => {
  const before = await head();
  const response = await send();
  t.true(response.status >= 400 && response.status < 500, `status ${response.status}`);
  t.is(await head(), before, 'nothing appended');
  return response;
};

const draftWith = (values: string): string =>
  `{"data":{"type":["T"],"meta":{"subject":"s"},"values":${values},"schema":{"schema":{"type":"object"}}}}`;

test.serial('a draft nested deeper than the limit is a 400 problem and appends nothing; the next request works', async (t) => {
  const body = draftWith(`{"x":{"kind":"STRING","value":${nested(1000, '"deep"')}}}`);
  const response = await refused(t, () => service.management('/drafts', { method: 'POST', headers: json, body }));
  t.is(response.status, 400);
  t.is(response.headers.get('content-type'), 'application/problem+json');
  const problem = (await response.json()) as { detail: string };
  t.regex(problem.detail, new RegExp(`nested deeper than ${JSON_LIMITS.maxDepth} levels`));
  const ok = await service.management('/drafts', { method: 'POST', headers: json, body: draftWith('{"x":{"kind":"STRING","value":"fine"}}') });
  t.is(ok.status, 201);
  t.is((await service.management('/drafts/search', { method: 'POST', headers: json, body: '{}' })).status, 200);
});

test.serial('depth exactly at the limit is accepted by the parser, one more level is refused', async (t) => {
  // The body itself is one level: its payload nests maxDepth - 1 more.
  const at = await service.management('/support-requests', { method: 'POST', headers: json, body: `{"message":"m","type":"OTHER","x":${nested(JSON_LIMITS.maxDepth - 1)}}` });
  t.is(at.status, 201);
  const over = await refused(t, () =>
    service.management('/support-requests', { method: 'POST', headers: json, body: `{"message":"m","type":"OTHER","x":${nested(JSON_LIMITS.maxDepth)}}` }),
  );
  t.is(over.status, 400);
});

test.serial('an array wider than the limit and a __proto__ member are 400 problems', async (t) => {
  const wide = `[${Array.from({ length: JSON_LIMITS.maxMembers + 1 }, () => '0').join(',')}]`;
  const tooWide = await refused(t, () => service.management('/drafts', { method: 'POST', headers: json, body: draftWith(wide) }));
  t.regex(((await tooWide.json()) as { detail: string }).detail, /wider than/);
  const proto = await refused(t, () =>
    service.management('/api-keys', { method: 'POST', headers: json, body: '{"labels":{"__proto__":{"admin":"true"}}}' }),
  );
  t.regex(((await proto.json()) as { detail: string }).detail, /__proto__/);
  t.is(({} as Record<string, unknown>)['admin'], undefined);
});

test.serial('a deep body on a wallet route is an OAuth invalid_request and appends nothing', async (t) => {
  const response = await refused(t, () =>
    service.wallet('/oidc4vci/credential', { method: 'POST', headers: { ...json, Authorization: 'DPoP x', DPoP: 'x' }, body: `{"proof":${nested(500)}}` }),
  );
  const body = (await response.json()) as { error?: string };
  t.is(typeof body.error, 'string');
  t.is(response.headers.get('content-type')?.startsWith('application/json'), true);
});

test.serial('a failing field with a large or deep value echoes only a bounded excerpt', async (t) => {
  const deepValue = nested(JSON_LIMITS.maxDepth - 3, '"x"');
  const longString = 'y'.repeat(50_000);
  const response = await refused(t, () =>
    service.management('/support-requests', { method: 'POST', headers: json, body: `{"message":${deepValue},"type":${JSON.stringify(longString)}}` }),
  );
  t.is(response.status, 400);
  t.is(response.headers.get('content-type'), 'application/problem+json');
  const problem = (await response.json()) as { errors: { location: string; value: unknown }[] };
  const byLocation = new Map(problem.errors.map((e) => [e.location, e.value]));
  t.true(typeof byLocation.get('body.message') === 'string' && (byLocation.get('body.message') as string).length <= EXCERPT_CHARS + 1);
  t.is((byLocation.get('body.type') as string).length, EXCERPT_CHARS + 1, 'clipped, with its ellipsis');
});

test.serial('a refused URL is echoed without its user-info, in a string or inside an object', async (t) => {
  const response = await refused(t, () =>
    service.management('/offers', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ credential_configuration_id: 'pid', grant: 'authorization_code', authentication_url: 'https://alice:s3cret@login.example/start', claims: { url: 'https://bob:hunter2@x.example/' } }),
    }),
  );
  t.is(response.status, 400);
  const text = await response.text();
  t.true(text.includes('authentication_url'), text);
  t.false(/s3cret|alice|hunter2/.test(text), text);
});

test.serial('an error answer stays small whatever the number of failures: at most 20 entries, smaller than the request', async (t) => {
  const many = JSON.stringify({ labels: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`l${i}`, i])) });
  const response = await refused(t, () => service.management('/api-keys', { method: 'POST', headers: json, body: many }));
  const text = await response.text();
  const problem = JSON.parse(text) as { errors: unknown[] };
  t.true(problem.errors.length <= MAX_FIELD_ERRORS);
  t.true(text.length < 16 * 1024, `answer of ${text.length} characters`);
  t.true(text.length < many.length);
});

test.serial('an unknown method is 405 with Allow on both listeners, not 501, and logs no error', async (t) => {
  const errorsBefore = logLines.filter((l) => l.includes('"level":"error"')).length;
  for (const send of [
    () => service.wallet('/oidc4vci/token', { method: 'PROPFIND' }),
    () => service.wallet('/health', { method: 'PROPFIND' }),
    () => service.management('/api-keys/search', { method: 'PROPFIND' }),
    () => service.management('/oidc4vp', { method: 'MKCOL' }),
  ]) {
    const response = await send();
    t.is(response.status, 405);
    t.is(response.headers.get('content-type'), 'application/problem+json');
    t.truthy(response.headers.get('allow'));
  }
  t.is(logLines.filter((l) => l.includes('"level":"error"')).length, errorsBefore);
});

test.serial('a resource API error that counted against the rate limit still carries the RateLimit headers', async (t) => {
  for (const response of [
    await service.management('/api-keys/00000000-0000-4000-8000-000000000000'),
    await service.management('/files/search', { method: 'POST', headers: json, body: '{"filter":7}' }),
  ]) {
    t.true(response.status === 404 || response.status === 400);
    t.regex(response.headers.get('ratelimit-policy') ?? '', /^"tenant";q=\d+;w=\d+$/);
    t.regex(response.headers.get('ratelimit') ?? '', /^"tenant";r=\d+;t=\d+$/);
  }
});
