// The OpenAPI document (src/app/openapiDocument.ts): valid OpenAPI 3.1, served without an API key, in step
// with the routers both ways, and describing what the service answers. Every other end-to-end
// test checks the answers it receives against it too (test/support/openapi.ts).
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { validate } from '@readme/openapi-parser';
import { METHODS as ALL_METHODS } from '../src/http/openapi/components.js';
import { openApiDocument, SERVICE_VERSION, type OpenApiDocument } from '../src/app/openapiDocument.js';
import type { Method, PathItem } from '../src/http/openapi/types.js';
import { createAgent } from './support/didcommAgent.js';
import { assertDocumented, listenersOf, schemaProblems, type Listener } from './support/openapi.js';
import { startTestService, type TestService } from './support/service.js';

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

const served = async (s: TestService): Promise<OpenApiDocument> => {
  const response = await s.management('/openapi.json', { key: null });
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  return (await response.json()) as OpenApiDocument;
};

test('the document is served without an API key, as the service builds it, at the package version', async (t) => {
  const s = service;
  t.deepEqual(await served(s), JSON.parse(JSON.stringify(openApiDocument(s.config))));
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  t.is(SERVICE_VERSION, pkg.version);
});

test('the served document is valid OpenAPI 3.1, and the validator refuses a broken one', async (t) => {
  const document = await served(service);
  const result = await validate(structuredClone(document) as never);
  t.true(result.valid, JSON.stringify(result));
  t.true(document.openapi.startsWith('3.1.'));
  const { info: _info, ...withoutInfo } = structuredClone(document);
  t.false((await validate(withoutInfo as never)).valid);
});

test('every schema of the document compiles as JSON Schema 2020-12 with no unknown keyword, and every example is valid', async (t) => {
  t.deepEqual(await schemaProblems(), []);
});

/** Methods a route table lists: HEAD is derived from GET by the router. */
const METHODS: readonly Method[] = ALL_METHODS.filter((m) => m !== 'head');

/** `/drafts/:id` as OpenAPI writes it. */
const openApiTemplate = (koaPath: string): string => koaPath.replace(/:([A-Za-z_]+)/g, '{$1}');

const documented = (document: OpenApiDocument, listener: Listener): Set<string> =>
  new Set(
    Object.entries(document.paths as Record<string, PathItem>)
      .filter(([, item]) => listenersOf(item).includes(listener))
      .flatMap(([template, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${template}`)),
  );

const difference = (a: ReadonlySet<string>, b: ReadonlySet<string>): string[] => [...a].filter((x) => !b.has(x)).sort();

test('every route of both listeners is in the document, and every operation in it is routed', async (t) => {
  const s = service;
  const document = await served(s);
  for (const listener of ['management', 'public'] as const) {
    const routed = new Set(s.service.routes[listener].map((r) => `${r.method} ${openApiTemplate(r.path)}`));
    const described = documented(document, listener);
    t.deepEqual(difference(routed, described), [], `${listener} routes missing from the document (add them to the feature's openapi.ts)`);
    t.deepEqual(difference(described, routed), [], `${listener} operations of the document that nothing routes`);
  }
  t.true(documented(document, 'management').has('GET /openapi.json'));
  t.true(documented(document, 'public').has('GET /health'));
  // HEAD is derived from GET by the router: the document describes it only beside a GET.
  for (const [template, item] of Object.entries(document.paths as Record<string, PathItem>)) {
    if (item.head) t.truthy(item.get, `HEAD ${template} without GET`);
  }
});

test('an answer the document does not describe fails the request that received it', async (t) => {
  const url = `${service.service.managementUrl}/tenant`;
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'r1', ...headers } });
  const tenant = { tenant_id: randomUUID(), name: 'default', api_key: { id: randomUUID(), scopes: ['admin'] } };
  await t.notThrowsAsync(assertDocumented('management', 'GET', url, answer(200, tenant)));
  await t.throwsAsync(assertDocumented('management', 'GET', url, answer(418, tenant)), { message: /status 418 is not described/ });
  await t.throwsAsync(assertDocumented('management', 'GET', url, answer(200, { ...tenant, extra: true })), { message: /additional properties/ });
  await t.throwsAsync(assertDocumented('management', 'GET', url, new Response(JSON.stringify(tenant), { headers: { 'Content-Type': 'application/json' } })), {
    message: /X-Request-Id is missing/,
  });
  const problem = { type: '/problems/method-not-allowed', title: 'Method not allowed', status: 405, detail: 'x', errors: [] };
  const wrongAllow = new Response(JSON.stringify(problem), { status: 405, headers: { 'Content-Type': 'application/problem+json', Allow: 'POST' } });
  await t.throwsAsync(assertDocumented('management', 'DELETE', url, wrongAllow), { message: /Allow is "POST"/ });
});

test('requests no operation describes get the answers the document states for them', async (t) => {
  const s = service;
  t.is((await s.management('/tenant', { method: 'OPTIONS' })).status, 200);
  t.is((await s.management('/api-keys/search', { method: 'GET' })).status, 400, 'GET reaches /api-keys/{id}, as the router matches it');
  t.is((await s.management('/api-keys/search', { method: 'PATCH' })).status, 405);
  t.is((await s.management('/no/such/route', { key: null })).status, 401);
  t.is((await s.wallet('/oidc4vci/token', { method: 'OPTIONS' })).status, 200);
  t.is((await s.wallet('/oidc4vci/token', { method: 'GET' })).status, 405);
  t.is((await s.wallet('/no/such/route')).status, 404);
});

const json = { 'Content-Type': 'application/json' };

const call = async (s: TestService, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) => {
  const response = await s.management(path, {
    method,
    headers: { ...(options.body === undefined ? {} : json), ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get('etag'), body: (text === '' ? {} : JSON.parse(text)) as { id: string; etag: string } };
};

const fromBlob = async (s: TestService, kind: 'files' | 'credentials', content: string): Promise<{ id: string }> => {
  const requested = (await (await s.management(`/${kind}/upload`, { method: 'POST' })).json()) as { blob_id: string; upload_uri: string };
  const url = new URL(requested.upload_uri);
  const put = await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: json, body: content });
  if (put.status !== 200) throw new Error(`upload answered ${put.status}`);
  const created = await call(s, 'POST', `/${kind}?blob_id=${requested.blob_id}`, { body: {} });
  if (created.status !== 201) throw new Error(`create ${kind} answered ${created.status}`);
  return created.body;
};

test('the routes every resource kind shares answer as the document describes, for every kind', async (t) => {
  const s = service;
  const created = async (path: string, body: unknown) => {
    const answer = await call(s, 'POST', path, { body });
    if (answer.status !== 201) throw new Error(`POST ${path} answered ${answer.status}`);
    return answer.body;
  };
  const credential = JSON.stringify({
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    type: ['VerifiableCredential'],
    issuanceDate: '2026-01-01T00:00:00Z',
    credentialSubject: { name: 'Erika' },
  });
  const resources: Record<string, { id: string }> = {
    'api-keys': await created('/api-keys', {}),
    files: await fromBlob(s, 'files', '{"tour": true}'),
    credentials: await fromBlob(s, 'credentials', credential),
    schemas: await created('/schemas', { data: { slug: 'tour', version: '1', schema: {} } }),
    drafts: await created('/drafts', { data: { schema: { schema: {} } } }),
    'didcomm-messages': await created('/didcomm-messages', { data: { to: createAgent('https://localhost:9/didcomm').did, key_id: randomUUID() } }),
  };
  for (const [kind, { id }] of Object.entries(resources)) {
    const base = `/${kind}/${id}`;
    t.is((await call(s, 'POST', `/${kind}/search`, { body: { filter: [{ id: { operator: 'EQUAL', value: id } }] } })).status, 200, kind);
    const latest = await call(s, 'GET', base);
    t.is(latest.status, 200, kind);
    t.is((await call(s, 'GET', base, { headers: { 'If-None-Match': latest.etag! } })).status, 304, kind);
    t.is((await call(s, 'GET', `${base}/history`)).status, 200, kind);
    t.is((await call(s, 'GET', `${base}/revisions/1`)).status, 200, kind);
    let etag = latest.etag!;
    for (const [method, path, body] of [
      ['PUT', `${base}/annotations`, { annotations: { tour: 'yes' } }],
      ['PUT', `${base}/labels`, { labels: { tour: 'yes' } }],
      ['DELETE', base, undefined],
      ['POST', `${base}/restore`, undefined],
    ] as const) {
      const changed = await call(s, method, path, { body, headers: { 'If-Match': etag } });
      t.is(changed.status, 200, `${method} ${kind}`);
      etag = changed.etag!;
    }
  }
});

test('every request example of the document is accepted by the service', async (t) => {
  const s = service;
  const document = await served(s);
  let tried = 0;
  for (const [template, item] of Object.entries(document.paths as Record<string, PathItem>)) {
    if (!listenersOf(item).includes('management')) continue;
    for (const method of METHODS) {
      const examples = item[method]?.requestBody?.content['application/json']?.examples ?? {};
      for (const [name, example] of Object.entries(examples)) {
        const answer = await call(s, method.toUpperCase(), template, { body: example.value });
        t.true(answer.status >= 200 && answer.status < 300, `${method.toUpperCase()} ${template} example ${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        tried += 1;
      }
    }
  }
  t.true(tried > 0);
});
