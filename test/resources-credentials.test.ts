// Credentials imported from uploaded blobs: description, links, claim values, search.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number; deleted_at: string | null; data: Record<string, unknown> };
type Problem = { status: number; errors: { location: string }[] };

const json = { 'Content-Type': 'application/json' };

const upload = async (s: TestService, kind: 'credentials' | 'files', bytes: string): Promise<string> => {
  const requested = (await (await s.management(`/${kind}/upload`, { method: 'POST' })).json()) as { blob_id: string; upload_uri: string };
  const url = new URL(requested.upload_uri);
  const put = await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: bytes });
  if (put.status !== 200) throw new Error(`upload ${put.status}`);
  return requested.blob_id;
};

const post = async (s: TestService, path: string, body: unknown = {}) => {
  const response = await s.management(path, { method: 'POST', headers: json, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Resource & Problem };
};

const vc = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    type: ['VerifiableCredential', 'MembershipCredential'],
    issuer: 'did:web:issuer.example',
    issuanceDate: '2026-01-01T00:00:00Z',
    expirationDate: '2027-01-01T00:00:00+01:00',
    credentialSubject: { id: 'did:example:holder', name: 'Erika', level: 3, active: true },
    proof: { type: 'Ed25519Signature2020', id: 'urn:proof:1' },
    ...extra,
  });

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('import describes the credential and links the tenant\'s files it names as related resources', async (t) => {
  const s = service;
  const file = await post(s, `/files?blob_id=${await upload(s, 'files', '{"a": "related file"}')}`);
  t.is(file.status, 201);
  const digest = String(file.body.data['digest_multibase']);
  const imported = await post(s, `/credentials?blob_id=${await upload(s, 'credentials', vc({ relatedResource: [{ id: 'https://x.example/a', digestMultibase: digest }] }))}`, { labels: { l: 'v' } });
  t.is(imported.status, 201);
  const data = imported.body.data;
  t.deepEqual(data['data_model'], {
    flavor_name: 'VC1_1',
    issuanceDate: '2026-01-01T00:00:00Z',
    expirationDate: '2027-01-01T00:00:00+01:00',
    proof: { id: 'urn:proof:1', type: 'Ed25519Signature2020' },
    type: ['VerifiableCredential', 'MembershipCredential'],
  });
  t.deepEqual(data['type'], ['VerifiableCredential', 'MembershipCredential']);
  t.is(data['valid_from'], '2026-01-01T00:00:00.000Z');
  t.is(data['valid_until'], '2026-12-31T23:00:00.000Z');
  t.regex(String(data['digest_multibase']), /^zQm/);
  t.deepEqual(data['linked_file_refs'], [{ digest_multibase: digest, resource_id: file.body.id }]);
  t.deepEqual(data['linked_credential_refs'], []);

  const values = await s.management(`/credentials/${imported.body.id}/values`);
  t.deepEqual(await values.json(), { name: { kind: 'STRING', value: 'Erika' }, level: { kind: 'NUMBER', value: 3 }, active: { kind: 'BOOLEAN', value: true } });

  const deleted = await s.management(`/credentials/${imported.body.id}`, { method: 'DELETE', headers: { 'If-Match': imported.body.etag } });
  t.is(deleted.status, 200);
  const history = (await (await s.management(`/credentials/${imported.body.id}/history`)).json()) as { items: Resource[] };
  t.deepEqual(history.items.map((i) => i.revision), [1, 2]);
});

test('a blob that is not a verifiable credential is 400 located in blob, and stays unused', async (t) => {
  const s = service;
  const notJson = await upload(s, 'credentials', 'not json');
  const refused = await post(s, `/credentials?blob_id=${notJson}`);
  t.is(refused.status, 400);
  t.is(refused.body.errors[0]?.location, 'blob');
  const noType = await upload(s, 'credentials', vc({ type: ['SomethingElse'] }));
  const invalid = await post(s, `/credentials?blob_id=${noType}`);
  t.is(invalid.status, 400);
  t.is(invalid.body.errors[0]?.location, 'blob.type');
  t.is((await post(s, `/credentials?blob_id=${noType}`)).status, 400, 'the blob was not used up');
});

test('a file blob, an unknown blob or an unknown draft_id cannot make a credential (404)', async (t) => {
  const s = service;
  t.is((await post(s, `/credentials?blob_id=${await upload(s, 'files', vc({ id: 'urn:x:1' }))}`)).status, 404);
  t.is((await post(s, `/credentials?blob_id=${randomUUID()}`)).status, 404);
  t.is((await post(s, `/credentials?blob_id=${await upload(s, 'credentials', vc({ id: 'urn:x:2' }))}&draft_id=${randomUUID()}`)).status, 404);
  const draft = await post(s, '/drafts', { data: { schema: { schema: {} } } });
  t.is((await post(s, `/credentials?blob_id=${await upload(s, 'credentials', vc({ id: 'urn:x:3' }))}&draft_id=${draft.body.id}`)).status, 201, 'a draft of the tenant may be named');
  t.is((await post(s, `/credentials?blob_id=${randomUUID()}&draft_id=nope`)).status, 400);
});

test('search credentials by type (IN), validity, digest and linked files', async (t) => {
  const s = service;
  const file = await post(s, `/files?blob_id=${await upload(s, 'files', '{"search": "linked"}')}`, { labels: { role: 'evidence' } });
  const digest = String(file.body.data['digest_multibase']);
  const linked = await post(s, `/credentials?blob_id=${await upload(s, 'credentials', vc({ id: 'urn:s:1', type: ['VerifiableCredential', 'SearchA'], relatedResource: [{ digestMultibase: digest }] }))}`);
  const other = await post(s, `/credentials?blob_id=${await upload(s, 'credentials', vc({ id: 'urn:s:2', type: ['VerifiableCredential', 'SearchB'], expirationDate: '2030-05-05T00:00:00Z' }))}`);
  const find = async (filter: unknown) =>
    ((await (await s.management('/credentials/search', { method: 'POST', headers: json, body: JSON.stringify({ filter: [filter] }) })).json()) as { items: Resource[] }).items.map((i) => i.id);
  t.deepEqual(await find({ data: { type: { operator: 'IN', values: ['SearchA', 'Nope'] } } }), [linked.body.id]);
  t.deepEqual((await find({ data: { type: { operator: 'IN', values: ['SearchA', 'SearchB'] } } })).sort(), [linked.body.id, other.body.id].sort());
  t.deepEqual(await find({ data: { valid_until: { operator: 'BETWEEN', left: '2030-01-01T00:00:00Z', right: '2030-12-31T00:00:00Z' } } }), [other.body.id]);
  t.deepEqual(await find({ data: { digest_multibase: { operator: 'EQUAL', value: other.body.data['digest_multibase'] } } }), [other.body.id]);
  t.deepEqual(await find({ data: { linked_files: { id: { operator: 'EQUAL', value: file.body.id } } } }), [linked.body.id]);
  t.deepEqual(await find({ data: { linked_files: { labels: [{ operator: 'EQUAL', key: 'role', value: 'evidence' }] } } }), [linked.body.id]);
  t.deepEqual(await find({ data: { linked_files: { labels: [{ operator: 'EQUAL', key: 'role', value: 'other' }] } } }), []);
  t.deepEqual(await find({ data: { linked_credentials: {} } }), []);
});
