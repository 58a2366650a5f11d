// The resource API's edges: support requests, 415 on non-JSON bodies, 429 with RateLimit headers.
import test from 'ava';
import { createPublicKey } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { tenantDid } from '../src/resources/didDocument.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { supportRequestStream } from '../streams/supportRequest.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { startTestService, type TestService } from './support/service.js';

const json = { 'Content-Type': 'application/json' };

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('a support request is 201 with its id; the message is sealed in the store; bad requests are 400', async (t) => {
  const s = service;
  const response = await s.management('/support-requests', { method: 'POST', headers: json, body: JSON.stringify({ type: 'DELETION', message: 'Please delete the data of Erika Mustermann' }) });
  t.is(response.status, 201);
  const body = (await response.json()) as { id: string; type: string; created_at: string };
  t.is(body.type, 'DELETION');
  t.truthy(body.created_at);
  const read = await s.service.store.readStream(supportRequestStream(body.id));
  if (read._tag !== 'Found') throw new Error('stream');
  t.false(JSON.stringify(read.events.map((e) => e.data)).includes('Erika'));
  for (const bad of [{ type: 'DELETION', message: '' }, { type: 'DELETION', message: '   ' }, { type: 'COMPLAINT', message: 'x' }, { message: 'x' }]) {
    t.is((await s.management('/support-requests', { method: 'POST', headers: json, body: JSON.stringify(bad) })).status, 400, JSON.stringify(bad));
  }
});

test('a non-JSON body is 415 on every route that takes JSON', async (t) => {
  const s = service;
  const id = '5b0c4a52-5f0c-4d3e-9b1a-2f6f7f1f9c10';
  for (const [method, path, headers] of [
    ['POST', '/schemas', {}],
    ['POST', '/drafts', {}],
    ['POST', '/support-requests', {}],
    ['POST', '/files/search', {}],
    ['PUT', `/api-keys/${id}/labels`, { 'If-Match': '"x"' }],
  ] as const) {
    const response = await s.management(path, { method, headers: { 'Content-Type': 'text/plain', ...headers }, body: 'x' });
    t.is(response.status, 415, `${method} ${path}`);
    t.is(response.headers.get('content-type'), 'application/problem+json');
  }
});

test('past its rate a tenant gets 429 with Retry-After and RateLimit headers; other tenants do not', async (t) => {
  const s = await startTestService({ env: { RESOURCE_RATE_LIMIT: '3', RESOURCE_RATE_WINDOW_SECONDS: '3600' } });
  try {
    const search = (key?: string) => s.management('/api-keys/search', { method: 'POST', headers: json, body: '{}', ...(key ? { key } : {}) });
    for (const remaining of [2, 1, 0]) {
      const response = await search();
      t.is(response.status, 200);
      t.is(response.headers.get('ratelimit-policy'), '"tenant";q=3;w=3600');
      t.regex(response.headers.get('ratelimit') ?? '', new RegExp(`^"tenant";r=${remaining};t=\\d+$`));
    }
    const limited = await search();
    t.is(limited.status, 429);
    t.regex(limited.headers.get('retry-after') ?? '', /^\d+$/);
    t.regex(limited.headers.get('ratelimit') ?? '', /^"tenant";r=0;t=\d+$/);
    t.like(await limited.json(), { status: 429, type: '/problems/too-many-requests' });

    const other = await createTenant(s.service.store, { name: 'other' }, { actor: 'test' });
    if (isLeft(other)) throw new Error('tenant');
    const key = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['admin'], expiration: null }, { actor: 'test' });
    if (isLeft(key)) throw new Error('key');
    await s.service.runner.waitFor(key.right.position, 5000);
    t.is((await search(key.right.secret)).status, 200);
    t.is((await s.management('/tenant')).status, 200, 'routes outside the resource API are not counted');
  } finally {
    await s.cleanup();
  }
});

test('GET /did answers the tenant did:web document, also served publicly where did:web resolves it', async (t) => {
  const s = service;
  const response = await s.management('/did');
  t.is(response.status, 200);
  const document = (await response.json()) as { id: string; verificationMethod: { id: string; controller: string; publicKeyJwk: { kty: string; crv: string; x: string; y: string } }[]; assertionMethod: string[] };
  t.is(document.id, `did:web:localhost%3A8080:tenants:${BOOTSTRAP_TENANT_ID}`);
  const method = document.verificationMethod[0]!;
  t.is(method.controller, document.id);
  t.deepEqual(document.assertionMethod, [method.id]);
  t.is(createPublicKey({ key: method.publicKeyJwk, format: 'jwk' }).asymmetricKeyType, 'ec', 'a usable P-256 key');
  const etag = response.headers.get('etag') ?? '';
  t.is((await s.management('/did', { headers: { 'If-None-Match': etag } })).status, 304);

  const resolved = await s.wallet(`/tenants/${BOOTSTRAP_TENANT_ID}/did.json`);
  t.is(resolved.status, 200);
  t.deepEqual(await resolved.json(), document);
  t.is((await s.wallet('/tenants/5b0c4a52-5f0c-4d3e-9b1a-2f6f7f1f9c10/did.json')).status, 404);

  const other = await createTenant(s.service.store, { name: 'did-other' }, { actor: 'test' });
  if (isLeft(other)) throw new Error('tenant');
  const key = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['resources'], expiration: null }, { actor: 'test' });
  if (isLeft(key)) throw new Error('key');
  await s.service.runner.waitFor(key.right.position, 5000);
  const theirs = (await (await s.management('/did', { key: key.right.secret })).json()) as typeof document;
  t.is(theirs.id, `did:web:localhost%3A8080:tenants:${other.right.tenantId}`);
  t.notDeepEqual(theirs.verificationMethod[0]!.publicKeyJwk, method.publicKeyJwk, 'each tenant has its own key');
});

test('did:web names follow PUBLIC_URL: host with port encoded, then its path', (t) => {
  t.is(tenantDid('https://connector.example', 't1'), 'did:web:connector.example:tenants:t1');
  t.is(tenantDid('https://connector.example:8443/eu/wallet', 't1'), 'did:web:connector.example%3A8443:eu:wallet:tenants:t1');
});
