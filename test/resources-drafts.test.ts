// Drafts: sealed values, exactly one of schema and meta_schema, PATCH with If-Match, export,
// and the 0.38 line selected by X-Service-OAS-Version.
import test from 'ava';
import { draftStream } from '../streams/draft.js';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number; data: Record<string, unknown> };

const json = { 'Content-Type': 'application/json' };
const temporary = { schema: { type: 'object', properties: { name: { type: 'string' } } } };

const send = async (s: TestService, method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await s.management(path, { method, headers: { ...json, ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Resource & { errors?: { location: string }[] } };
};

const createDraft = (s: TestService, data: Record<string, unknown>, headers: Record<string, string> = {}) =>
  send(s, 'POST', '/drafts', { data, labels: { t: 'drafts' } }, headers);

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('a draft keeps its values and subject sealed in the store and shows them to the tenant', async (t) => {
  const s = service;
  const created = await createDraft(s, {
    type: ['MembershipCredential'],
    meta: { subject: 'did:example:erika', valid_from: '2026-01-01T00:00:00Z' },
    values: { name: { kind: 'STRING', value: 'Erika Mustermann' }, level: { kind: 'NUMBER', value: 3 } },
    schema: temporary,
  });
  t.is(created.status, 201);
  const data = created.body.data;
  t.deepEqual(data['values'], { name: { kind: 'STRING', value: 'Erika Mustermann' }, level: { kind: 'NUMBER', value: 3 } });
  t.deepEqual(data['meta'], { subject: 'did:example:erika', valid_from: '2026-01-01T00:00:00Z' });
  t.false('schema' in data, 'the 0.40 line does not return schema');
  t.false('sealed' in data);
  t.deepEqual(((await (await s.management(`/drafts/${created.body.id}`)).json()) as Resource).data, data);

  const read = await s.service.store.readStream(draftStream(created.body.id));
  if (read._tag !== 'Found') throw new Error('stream');
  const recorded = JSON.stringify(read.events.map((e) => e.data));
  t.false(recorded.includes('Erika'), 'no value in the clear');
  t.false(recorded.includes('did:example:erika'), 'no subject in the clear');
});

test('exactly one of schema or meta_schema; meta_schema must be a published schema of the tenant; values match their kind', async (t) => {
  const s = service;
  const both = await createDraft(s, { schema: temporary, meta_schema: 'https://x.example/s' });
  t.is(both.status, 400);
  t.is(both.body.errors?.[0]?.location, 'body.data');
  t.is((await createDraft(s, {})).status, 400);
  const unknown = await createDraft(s, { meta_schema: 'https://x.example/s' });
  t.is(unknown.body.errors?.[0]?.location, 'body.data.meta_schema');
  t.is((await createDraft(s, { schema: temporary, values: { n: { kind: 'NUMBER', value: 'x' } } })).status, 400);

  const schema = await send(s, 'POST', '/schemas', { data: { slug: 'for-drafts', version: '1', schema: temporary.schema } });
  const published = await s.management(`/schemas/${schema.body.id}/publish`, { method: 'PATCH', headers: { 'If-Match': schema.body.etag } });
  const url = String(((await published.json()) as Resource).data['url']);
  const withMeta = await createDraft(s, { meta_schema: url, values: {} });
  t.is(withMeta.status, 201);
  t.is(withMeta.body.data['meta_schema'], url);
});

test('PATCH /drafts/{id} needs If-Match and changes only what it names', async (t) => {
  const s = service;
  const created = await createDraft(s, { schema: temporary, meta: { subject: 'did:example:a' }, values: { name: { kind: 'STRING', value: 'A' } } });
  const path = `/drafts/${created.body.id}`;
  t.is((await send(s, 'PATCH', path, { data: { values: {} } })).status, 428);
  t.is((await send(s, 'PATCH', path, { data: { values: {} } }, { 'If-Match': '"stale"' })).status, 412);
  const patched = await send(s, 'PATCH', path, { data: { values: { name: { kind: 'STRING', value: 'B' } }, type: ['X'] } }, { 'If-Match': created.body.etag });
  t.is(patched.status, 200);
  t.is(patched.body.revision, 2);
  t.deepEqual(patched.body.data['values'], { name: { kind: 'STRING', value: 'B' } });
  t.deepEqual(patched.body.data['meta'], { subject: 'did:example:a' });
  t.deepEqual(patched.body.data['type'], ['X']);
  const r1 = (await (await s.management(`${path}/revisions/1`)).json()) as Resource;
  t.deepEqual(r1.data['values'], { name: { kind: 'STRING', value: 'A' } }, 'revision 1 still shows its own values');
  const key = { 'If-Match': patched.body.etag, 'Idempotency-Key': 'draft-patch-0123456789-0123456789-abc' };
  const once = await send(s, 'PATCH', path, { data: { type: ['Y'] } }, key);
  const twice = await send(s, 'PATCH', path, { data: { type: ['Y'] } }, key);
  t.is(once.body.revision, 3);
  t.deepEqual(twice, once, 'a repeated PATCH with its Idempotency-Key is replayed, not run again');
  const labelled = await send(s, 'PUT', `${path}/labels`, { labels: { a: 'b' } }, { 'If-Match': once.body.etag });
  t.is(labelled.status, 200);
  t.deepEqual(labelled.body.data['values'], { name: { kind: 'STRING', value: 'B' } });
});

test('export makes an unsigned JSON-LD credential from a revision; issuer is required', async (t) => {
  const s = service;
  const created = await createDraft(s, {
    type: ['MembershipCredential'],
    meta: { subject: 'did:example:holder', valid_until: '2030-01-01T00:00:00Z' },
    values: { name: { kind: 'STRING', value: 'Erika' } },
    json_ld_vocabs: ['https://vocab.example/v1'],
    vcdm_json_schemas: ['https://schemas.example/membership.json'],
    schema: temporary,
  });
  const path = `/drafts/${created.body.id}/revisions/1/export`;
  const response = await s.management(path, { method: 'POST', headers: json, body: JSON.stringify({ issuer: 'did:web:issuer.example', valid_from: '2026-02-01T00:00:00Z' }) });
  t.is(response.status, 200);
  const text = (await response.json()) as string;
  t.is(typeof text, 'string');
  t.deepEqual(JSON.parse(text), {
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://vocab.example/v1'],
    type: ['VerifiableCredential', 'MembershipCredential'],
    issuer: 'did:web:issuer.example',
    issuanceDate: '2026-02-01T00:00:00Z',
    expirationDate: '2030-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', name: 'Erika' },
    credentialSchema: [{ id: 'https://schemas.example/membership.json', type: 'JsonSchema' }],
  });
  t.is((await send(s, 'POST', path, {})).status, 400);
  t.is((await send(s, 'POST', `/drafts/${created.body.id}/revisions/9/export`, { issuer: 'did:web:x' })).status, 404);
});

test('X-Service-OAS-Version: 0.38.2 takes and shows plain values and requires and returns schema; unknown versions are 400', async (t) => {
  const s = service;
  const old = { 'X-Service-OAS-Version': '0.38.2' };
  t.is((await createDraft(s, { values: { name: 'Erika' } }, old)).status, 400, 'schema is required in 0.38');
  const created = await createDraft(s, { values: { name: 'Erika', age: 40 }, schema: { title: 'Old schema' } }, old);
  t.is(created.status, 201);
  t.deepEqual(created.body.data['values'], { name: 'Erika', age: 40 });
  t.deepEqual(created.body.data['schema'], { title: 'Old schema' });
  const asNew = (await (await s.management(`/drafts/${created.body.id}`)).json()) as Resource;
  t.deepEqual(asNew.data['values'], { name: { kind: 'STRING', value: 'Erika' }, age: { kind: 'NUMBER', value: 40 } });
  t.false('schema' in asNew.data);
  t.is((await s.management(`/drafts/${created.body.id}`, { headers: { 'X-Service-OAS-Version': '0.40.11' } })).status, 200);
  const unknown = await s.management(`/drafts/${created.body.id}`, { headers: { 'X-Service-OAS-Version': '0.39.0' } });
  t.is(unknown.status, 400);
  t.is((await s.management('/api-keys/search', { method: 'POST', headers: { ...json, 'X-Service-OAS-Version': '1.0.0' }, body: '{}' })).status, 400);
  t.is((await s.management('/tenant', { headers: { 'X-Service-OAS-Version': '1.0.0' } })).status, 200, 'only the resource API reads the header');
});

test('members of meta the API does not define are dropped, not stored and echoed', async (t) => {
  const created = await createDraft(service, {
    type: ['MembershipCredential'],
    meta: { subject: 'did:example:erika', constructor: { prototype: { polluted: true } }, note: 'x' },
    values: { name: { kind: 'STRING', value: 'Erika' } },
    schema: temporary,
  });
  t.is(created.status, 201);
  t.deepEqual(created.body.data['meta'], { subject: 'did:example:erika' });
  const read = (await (await service.management(`/drafts/${created.body.id}`)).json()) as Resource;
  t.deepEqual(read.data['meta'], { subject: 'did:example:erika' });
});
