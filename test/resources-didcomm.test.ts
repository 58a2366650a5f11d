// DIDComm messages: referenced resources embedded, transitive closure over credential links,
// the recipient sealed, and every reference checked in the tenant.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { didcommStream } from '../streams/didcommMessage.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { createAgent } from './support/didcommAgent.js';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number; data: Record<string, unknown> };
type Message = Resource & { data: { from: string; to: string; credentials: { items: Resource[] }; files: { items: Resource[] }; presentations: { items: Resource[] }; delivery: unknown } };

const json = { 'Content-Type': 'application/json' };
/** A recipient the connector accepts (its endpoint, on loopback, is refused at each attempt: these tests are about the record). */
const BOB = createAgent('https://localhost:9/didcomm').did;

const post = async <T = Resource>(s: TestService, path: string, body: unknown = {}) => {
  const response = await s.management(path, { method: 'POST', headers: json, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as T & { errors?: { location: string }[] } };
};

const fromBlob = async (s: TestService, kind: 'files' | 'credentials', content: string): Promise<Resource> => {
  const requested = (await (await s.management(`/${kind}/upload`, { method: 'POST' })).json()) as { blob_id: string; upload_uri: string };
  const url = new URL(requested.upload_uri);
  await (await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: json, body: content })).text();
  const created = await post(s, `/${kind}?blob_id=${requested.blob_id}`);
  if (created.status !== 201) throw new Error(`create ${kind} ${created.status}`);
  return created.body;
};

const vc = (id: string, related: string[] = []) =>
  JSON.stringify({
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    id,
    type: ['VerifiableCredential'],
    issuanceDate: '2026-01-01T00:00:00Z',
    credentialSubject: { name: 'x' },
    relatedResource: related.map((digestMultibase) => ({ digestMultibase })),
  });

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('a message embeds the named resources and, by default, the credentials they link to; the recipient is sealed', async (t) => {
  const s = service;
  const file = await fromBlob(s, 'files', 'attachment');
  const base = await fromBlob(s, 'credentials', vc('urn:c:base'));
  const top = await fromBlob(s, 'credentials', vc('urn:c:top', [String(base.data['digest_multibase'])]));
  const send = (extra: Record<string, unknown> = {}) =>
    post<Message>(s, '/didcomm-messages', { data: { to: BOB, key_id: randomUUID(), credentials: [top.id], files: [file.id], ...extra } });

  const closed = await send();
  t.is(closed.status, 201);
  t.is(closed.body.data.from, `did:web:localhost%3A8080:tenants:${BOOTSTRAP_TENANT_ID}`);
  t.is(closed.body.data.to, BOB);
  t.deepEqual(closed.body.data.credentials.items.map((i) => i.id), [top.id, base.id]);
  t.deepEqual(closed.body.data.files.items.map((i) => i.id), [file.id]);
  t.deepEqual(closed.body.data.presentations, { items: [] });
  // `delivery` moves on as the (here unreachable) recipient is tried: the record is what must read the same.
  const withoutDelivery = ({ data: { delivery: _, ...data }, ...rest }: Message) => ({ ...rest, data });
  t.deepEqual(withoutDelivery((await (await s.management(`/didcomm-messages/${closed.body.id}`)).json()) as Message), withoutDelivery(closed.body));

  const open = await send({ disable_transitive_closure: true });
  t.deepEqual(open.body.data.credentials.items.map((i) => i.id), [top.id]);

  const read = await s.service.store.readStream(didcommStream(closed.body.id));
  if (read._tag !== 'Found') throw new Error('stream');
  t.false(JSON.stringify(read.events.map((e) => e.data)).includes(BOB), 'the recipient is not in the clear');

  const labelled = await s.management(`/didcomm-messages/${closed.body.id}/labels`, { method: 'PUT', headers: { ...json, 'If-Match': closed.body.etag }, body: JSON.stringify({ labels: { a: 'b' } }) });
  t.is(labelled.status, 200);
  t.is(((await labelled.json()) as Message).data.to, BOB);
});

test('every referenced credential, file and presentation must exist, live, in the tenant (404 listing each)', async (t) => {
  const s = service;
  const file = await fromBlob(s, 'files', 'soon deleted');
  t.is((await s.management(`/files/${file.id}`, { method: 'DELETE', headers: { 'If-Match': file.etag } })).status, 200);
  const refused = await post(s, '/didcomm-messages', {
    data: { to: BOB, key_id: randomUUID(), credentials: [randomUUID()], files: [file.id], presentations: [randomUUID()] },
  });
  t.is(refused.status, 404);
  t.deepEqual(refused.body.errors?.map((e) => e.location), ['body.data.credentials[0]', 'body.data.files[0]', 'body.data.presentations[0]']);
  t.is((await post(s, '/didcomm-messages', { data: { to: BOB, key_id: 'nope' } })).status, 400);
  t.is((await post(s, '/didcomm-messages', { data: { to: '', key_id: randomUUID() } })).status, 400);
});
