import test from 'ava';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import * as io from 'io-ts';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { HttpError, allowedMethods, conflict, problems, unauthorized } from '../src/http/problem.js';
import type { Problem } from '../src/http/problem.js';
import { readForm, readJson } from '../src/http/body.js';
import { decode } from '../src/http/validate.js';
import { HttpBaseUrl, NonEmptyString, PositiveInt, PortFromString } from '../src/http/codecs.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger, requestLog } from '../src/log.js';

const lines: string[] = [];
const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });

const Item = io.type({
  name: NonEmptyString,
  count: PositiveInt,
  tags: io.array(io.string),
  dcql_query: io.type({ credentials: io.array(io.type({ id: io.string, format: io.keyof({ 'dc+sd-jwt': null, mso_mdoc: null }) })) }),
});

let server: Server;
let base: string;

test.before(async () => {
  const app = new Koa();
  const router = new Router();
  router.get('/items/:id', (ctx) => {
    ctx.body = { id: ctx.params['id'] };
  });
  router.post('/items', async (ctx) => {
    const body = decode(Item, await readJson(ctx, { limitBytes: 256 }), 'body');
    ctx.status = 201;
    ctx.body = { name: body.name };
  });
  router.post('/form', async (ctx) => {
    ctx.body = { fields: await readForm(ctx, { limitBytes: 256 }) };
  });
  router.get('/conflict', (ctx) => {
    ctx.set('ETag', '"half-built"');
    throw new HttpError(conflict('The offer was already redeemed.'));
  });
  router.get('/private', () => {
    throw new HttpError(unauthorized(), { 'WWW-Authenticate': 'Bearer' });
  });
  router.get('/boom', () => {
    throw new Error('db password is hunter2');
  });
  router.get('/upstream', () => {
    // Looks like an http-errors 404 from some client library: must not leak as our 404.
    throw Object.assign(new Error('upstream said not found'), { status: 404, expose: true });
  });
  app.use(requestLog(logger));
  app.use(problems({ logger }));
  app.use(router.routes());
  app.use(allowedMethods(router));
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after.always(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const problemOf = async (res: Response): Promise<Problem> => {
  const text = await res.text();
  return JSON.parse(text) as Problem;
};

test('a thrown problem becomes problem+json with its exact shape and headers', async (t) => {
  const res = await fetch(`${base}/conflict`);
  t.is(res.status, 409);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.is(res.headers.get('etag'), null, 'headers of the abandoned response are dropped');
  t.truthy(res.headers.get('x-request-id'));
  t.deepEqual(await problemOf(res), {
    type: '/problems/conflict',
    title: 'Conflict',
    status: 409,
    detail: 'The offer was already redeemed.',
    errors: [],
  });

  const unauth = await fetch(`${base}/private`);
  t.is(unauth.status, 401);
  t.is(unauth.headers.get('www-authenticate'), 'Bearer');
  t.is((await problemOf(unauth)).type, '/problems/unauthorized');
});

test('an unexpected error becomes a generic 500 problem and is logged, not echoed', async (t) => {
  const before = lines.length;
  const res = await fetch(`${base}/boom`);
  t.is(res.status, 500);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  const text = await res.text();
  t.false(text.includes('hunter2'));
  t.false(text.includes('at '), 'no stack frames');
  t.deepEqual(JSON.parse(text), {
    type: '/problems/internal-error',
    title: 'Internal error',
    status: 500,
    detail: 'An unexpected error occurred.',
    errors: [],
  });
  const logged = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
  const failure = logged.find((l) => l['msg'] === 'request failed');
  t.truthy(failure);
  t.is(failure?.['level'], 'error');
  t.is(failure?.['route'], '/boom');
  t.regex(JSON.stringify(failure?.['err']), /hunter2/);
});

test('an error carrying a status from elsewhere is still a 500', async (t) => {
  const res = await fetch(`${base}/upstream`);
  t.is(res.status, 500);
  t.is((await problemOf(res)).type, '/problems/internal-error');
});

test('no matching route falls through to a 404 problem', async (t) => {
  const res = await fetch(`${base}/nowhere`);
  t.is(res.status, 404);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.deepEqual(await problemOf(res), {
    type: '/problems/not-found',
    title: 'Not found',
    status: 404,
    detail: 'No resource exists at this location.',
    errors: [],
  });
});

test('a known path with the wrong method is a 405 problem with Allow', async (t) => {
  const res = await fetch(`${base}/items/42`, { method: 'DELETE' });
  t.is(res.status, 405);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.is(res.headers.get('allow'), 'HEAD, GET');
  const p = await problemOf(res);
  t.is(p.type, '/problems/method-not-allowed');
  t.is(p.status, 405);
  t.is(p.detail, 'Allowed methods: HEAD, GET.');
});

test('readJson rejects text/plain with 415', async (t) => {
  const res = await fetch(`${base}/items`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
  t.is(res.status, 415);
  t.is(res.headers.get('content-type'), 'application/problem+json');
  t.is((await problemOf(res)).type, '/problems/unsupported-media-type');
});

test('readJson accepts +json types and a utf-8 charset', async (t) => {
  const good = JSON.stringify({
    name: 'n',
    count: 1,
    tags: [],
    dcql_query: { credentials: [{ id: 'pid', format: 'dc+sd-jwt' }] },
  });
  for (const type of ['application/json; charset=UTF-8', 'application/vnd.example+json']) {
    const res = await fetch(`${base}/items`, { method: 'POST', headers: { 'Content-Type': type }, body: good });
    t.is(res.status, 201, type);
  }
  const latin1 = await fetch(`${base}/items`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json; charset=iso-8859-1' },
    body: good,
  });
  t.is(latin1.status, 415);
});

test('readJson rejects invalid JSON with a 400 problem naming the body', async (t) => {
  const res = await fetch(`${base}/items`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"name": secret-looking-thing',
  });
  t.is(res.status, 400);
  const text = await res.text();
  t.false(text.includes('secret-looking-thing'));
  const p = JSON.parse(text) as Problem;
  t.is(p.type, '/problems/invalid-request');
  t.deepEqual(p.errors, [{ location: 'body', message: 'The request body is not valid JSON.' }]);
});

test('readJson rejects bodies over the limit with 413, declared or streamed', async (t) => {
  const big = JSON.stringify({ name: 'x'.repeat(400) });
  const declared = await fetch(`${base}/items`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: big });
  t.is(declared.status, 413);
  t.is((await problemOf(declared)).type, '/problems/content-too-large');

  // No Content-Length: the limit must hold while reading a chunked body.
  const bytes = new TextEncoder().encode(big);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, 200));
      controller.enqueue(bytes.slice(200));
      controller.close();
    },
  });
  const chunked = await fetch(`${base}/items`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  t.is(chunked.status, 413);
  t.is((await problemOf(chunked)).type, '/problems/content-too-large');
});

test('readForm parses urlencoded bodies, keeps repeats, and requires the media type', async (t) => {
  const res = await fetch(`${base}/form`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=x&scope=a&scope=b&__proto__=p',
  });
  t.is(res.status, 200);
  // Parsed, because an object literal's `__proto__` would set the prototype instead of a field.
  t.deepEqual(await res.json(), JSON.parse('{"fields":{"grant_type":"x","scope":["a","b"],"__proto__":"p"}}'));
  const wrong = await fetch(`${base}/form`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  t.is(wrong.status, 415);
});

test('decode reports one error per failure with nested locations', (t) => {
  const error = t.throws(
    () =>
      decode(
        Item,
        {
          name: '',
          count: 0,
          tags: ['ok', 7],
          dcql_query: { credentials: [{ id: 'a', format: 'dc+sd-jwt' }, { format: 'jwt_vc' }] },
        },
        'body',
      ),
    { instanceOf: HttpError },
  );
  const p = error.problem;
  t.is(p.status, 400);
  t.is(p.type, '/problems/invalid-request');
  t.deepEqual(
    p.errors.map((e) => ({ location: e.location, value: e.value })),
    [
      { location: 'body.name', value: '' },
      { location: 'body.count', value: 0 },
      { location: 'body.tags[1]', value: 7 },
      { location: 'body.dcql_query.credentials[1].id', value: undefined },
      { location: 'body.dcql_query.credentials[1].format', value: 'jwt_vc' },
    ],
  );
  t.is(p.errors[0]?.message, 'expected NonEmptyString');
  t.is(p.errors[2]?.message, 'expected string');
  t.is(p.errors[3]?.message, 'required; expected string');
  t.regex(p.errors[4]?.message ?? '', /mso_mdoc/);
});

test('decode locations: unions add no segment, odd keys are quoted, roots work', (t) => {
  const codec = io.type({ 'odd-key': io.union([io.string, io.type({ inner: io.number })]), list: io.array(io.array(io.number)) });
  const error = t.throws(() => decode(codec, { 'odd-key': { inner: 'x' }, list: [[1], [2, 'y']] }, 'query'), {
    instanceOf: HttpError,
  });
  t.deepEqual(
    error.problem.errors.map((e) => e.location),
    ['query["odd-key"]', 'query["odd-key"].inner', 'query.list[1][1]'],
  );
  const root = t.throws(() => decode(io.type({ a: io.string }), 'nope', 'body'), { instanceOf: HttpError });
  t.deepEqual(root.problem.errors, [{ location: 'body', message: 'expected an object', value: 'nope' }]);
  t.deepEqual(decode(io.type({ a: io.string }), { a: 'x', extra: 1 }, 'body'), { a: 'x', extra: 1 });
});

test('config defaults', (t) => {
  const result = loadConfig({});
  if (!isRight(result)) return t.fail(JSON.stringify(result.left));
  // A subset: each feature's own tests cover the variables it adds.
  t.like(result.right, {
    dataDir: './data',
    managementPort: 8081,
    managementHost: '127.0.0.1',
    publicPort: 8080,
    publicHost: '0.0.0.0',
    publicUrl: 'http://localhost:8080',
    logLevel: 'info',
    readYourWritesTimeoutMs: 5000,
    shutdownTimeoutMs: 10000,
  });
  t.is(result.right.eventStoreConnectionString, undefined);
  t.is(result.right.bootstrapApiKey, undefined);
  t.is(result.right.readModelsFile, undefined);
  t.is(result.right.dataKeyEncryptionKey, undefined);
});

test('config accepts valid values, ephemeral ports and normalises PUBLIC_URL', (t) => {
  const key = 'k'.repeat(20) + '_-ABC0123456789';
  const result = loadConfig({
    MANAGEMENT_PORT: '0',
    PUBLIC_PORT: '0',
    PUBLIC_URL: 'HTTPS://Issuer.Example:443/connector/',
    BOOTSTRAP_API_KEY: key,
    EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113?tls=false',
    LOG_LEVEL: 'debug',
    MANAGEMENT_HOST: '::1',
    READ_YOUR_WRITES_TIMEOUT_MS: '',
  });
  if (!isRight(result)) return t.fail(JSON.stringify(result.left));
  t.is(result.right.publicUrl as string, 'https://issuer.example/connector');
  t.is(result.right.managementPort, 0);
  t.is(result.right.bootstrapApiKey, key);
  t.is(result.right.managementHost, '::1');
  t.is(result.right.readYourWritesTimeoutMs, 5000, 'empty counts as unset');
  const root = loadConfig({ PUBLIC_URL: 'http://localhost:8080/' });
  t.true(isRight(root) && root.right.publicUrl === 'http://localhost:8080');
});

test('config names every bad variable and never echoes secrets', (t) => {
  const result = loadConfig({
    MANAGEMENT_PORT: 'abc',
    PUBLIC_PORT: '70000',
    PUBLIC_URL: 'ftp://example.com',
    BOOTSTRAP_API_KEY: 'short-secret',
    LOG_LEVEL: 'verbose',
    SHUTDOWN_TIMEOUT_MS: '-1',
    EVENTSTORE_CONNECTION_STRING: 'mongodb://user:pw@host',
    MANAGEMENT_HOST: 'not a host',
  });
  if (!isLeft(result)) return t.fail('expected failure');
  const messages = result.left;
  t.true(messages.includes('MANAGEMENT_PORT: expected an integer 0-65535, got "abc"'));
  t.true(messages.includes('PUBLIC_PORT: expected an integer 0-65535, got "70000"'));
  t.true(messages.some((m) => m.startsWith('PUBLIC_URL: expected an absolute http(s) URL')));
  t.true(messages.includes('BOOTSTRAP_API_KEY: expected at least 32 characters from [A-Za-z0-9_-], got a 12-character value'));
  t.true(messages.includes('LOG_LEVEL: expected one of debug, info, warn, error, got "verbose"'));
  t.true(messages.some((m) => m.startsWith('SHUTDOWN_TIMEOUT_MS: ')));
  t.true(messages.some((m) => m.startsWith('EVENTSTORE_CONNECTION_STRING: ')));
  t.true(messages.some((m) => m.startsWith('MANAGEMENT_HOST: ')));
  t.is(messages.length, 8);
  t.false(messages.join('\n').includes('short-secret'));
  t.false(messages.join('\n').includes('pw@host'));

  for (const url of ['http://x.example/?q=1', 'http://x.example/#f', 'http://u:p@x.example', 'relative/path']) {
    const r = loadConfig({ PUBLIC_URL: url });
    t.true(isLeft(r) && r.left.length === 1 && r.left[0]!.startsWith('PUBLIC_URL: '), url);
  }
  const clash = loadConfig({ PUBLIC_PORT: '9000', MANAGEMENT_PORT: '9000' });
  t.true(isLeft(clash) && clash.left[0]!.startsWith('PUBLIC_PORT: '));
});

test('codecs: ports are strict decimal', (t) => {
  for (const bad of ['', ' 80', '0x50', '1e3', '08', '-1', '65536', '80.0']) t.true(isLeft(PortFromString.decode(bad)), bad);
  t.true(isRight(PortFromString.decode('65535')));
  t.true(HttpBaseUrl.is('https://a.example'));
  t.false(HttpBaseUrl.is('https://a.example/'));
});

test('log lines are JSON with level filtering and child fields', (t) => {
  const out: string[] = [];
  const log = createLogger({ level: 'info', write: (l) => out.push(l), fields: { svc: 'x' } });
  log.debug('hidden');
  log.child({ component: 'c' }).warn('shown', { n: 1n, level: 'forged', err: new Error('e') });
  t.is(out.length, 1);
  const line = JSON.parse(out[0]!) as Record<string, unknown>;
  t.deepEqual(Object.keys(line).slice(0, 3), ['time', 'level', 'msg']);
  t.is(line['level'], 'warn');
  t.is(line['msg'], 'shown');
  t.is(line['svc'], 'x');
  t.is(line['component'], 'c');
  t.is(line['n'], '1');
  t.is((line['err'] as { message?: unknown }).message, 'e');
  t.regex(line['time'] as string, /^\d{4}-\d{2}-\d{2}T/);
});

test('request log has the route template, status and request id but no path ids or query', async (t) => {
  const before = lines.length;
  const res = await fetch(`${base}/items/secret-id-123?code=pre-auth-code-xyz&state=s1`, {
    headers: { 'X-Request-Id': 'req-abc.1' },
  });
  t.is(res.status, 200);
  t.is(res.headers.get('x-request-id'), 'req-abc.1');
  const bad = await fetch(`${base}/items/1`, { headers: { 'X-Request-Id': 'has spaces <script>' } });
  t.regex(bad.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);

  const logged = lines.slice(before);
  for (const l of logged) JSON.parse(l);
  const all = logged.join('\n');
  t.false(all.includes('pre-auth-code-xyz'));
  t.false(all.includes('secret-id-123'));
  t.false(all.includes('code='));
  const entry = logged.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['requestId'] === 'req-abc.1');
  t.like(entry, { level: 'info', msg: 'request', method: 'GET', route: '/items/:id', status: 200 });
  t.is(typeof entry?.['durationMs'], 'number');

  await fetch(`${base}/nowhere/at/all?token=zzz`);
  const miss = lines
    .slice(before)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l['status'] === 404);
  t.like(miss, { route: null, status: 404 });
});
