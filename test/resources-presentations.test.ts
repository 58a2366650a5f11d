// The presentations kind: an unsigned W3C Verifiable Presentation (data model 1.1) made from the
// tenant's credentials, its content a blob sealed with its own data key and shredded once deleted
// past the restore window; the envelope rules of every kind (search,
// history, revisions, delete, restore); and a DIDComm message embedding it, which an independent
// DIDComm library decrypts with `presentations` holding it.
import test from 'ava';
import { createHash, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { blobKeyOwner, blobStream } from '../streams/blob.js';
import { blobDirectory, digestMultibaseOf, sealedBlobStore } from '../src/blobStore.js';
import { sweepBlobs } from '../src/resources/blobSweeper.js';
import { didcommDeliveryId } from '../src/didcomm/deliveryRequest.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { ended, eventuallyDelivery } from './support/callbackService.js';
import { createAgent, unpack } from './support/didcommAgent.js';
import { filesHolding, opsScript, runScript } from './support/processes.js';
import { startReceiver } from './support/receiver.js';
import { blobIdOf } from './support/blobs.js';
import { startTestService, withReachablePublicUrl, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number; deleted_at: string | null; kind: { name: string }; data: Record<string, unknown> };
type Problem = { type: string; status: number; detail: string; errors?: { location: string }[] };

const json = { 'Content-Type': 'application/json' };

const call = async <T = Resource>(s: TestService, path: string, init: RequestInit & { key?: string } = {}) => {
  const response = await s.management(path, init);
  return { status: response.status, body: (await response.json()) as T & { errors?: { location: string }[] } };
};
const post = <T = Resource>(s: TestService, path: string, body: unknown, headers: Record<string, string> = {}, key?: string) =>
  call<T>(s, path, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body), ...(key ? { key } : {}) });

const credentialOf = async (s: TestService, content: string): Promise<Resource> => {
  const requested = (await (await s.management('/credentials/upload', { method: 'POST' })).json()) as { blob_id: string; upload_uri: string };
  const url = new URL(requested.upload_uri);
  await (await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: json, body: content })).text();
  const created = await post(s, `/credentials?blob_id=${requested.blob_id}`, {});
  if (created.status !== 201) throw new Error(`create credential ${created.status}`);
  return created.body;
};

const vc = (name: string) =>
  JSON.stringify({
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    id: `urn:c:${name}`,
    type: ['VerifiableCredential', 'MembershipCard'],
    issuanceDate: '2026-01-01T00:00:00Z',
    credentialSubject: { name },
  });

test('a presentation of two credentials: an unsigned VP 1.1 as content, searchable, revisable, deleted and restored like every kind', async (t) => {
  const s = await startTestService();
  try {
    const erika = await credentialOf(s, vc('Erika'));
    const max = await credentialOf(s, vc('Max'));
    const made = await post(s, '/presentations', { credentials: [erika.id, max.id], type: ['MembershipPresentation'], labels: { case: '7' } });
    t.is(made.status, 201);
    const presentation = made.body;
    t.like(presentation, { kind: { name: 'presentation' }, revision: 1, deleted_at: null });
    t.deepEqual(presentation.data['type'], ['VerifiablePresentation', 'MembershipPresentation']);
    t.deepEqual(presentation.data['linked_credential_refs'], [
      { digest_multibase: erika.data['digest_multibase'], resource_id: erika.id },
      { digest_multibase: max.data['digest_multibase'], resource_id: max.id },
    ]);

    const content = await s.management(`/presentations/${presentation.id}/content`);
    const bytes = Buffer.from(await content.arrayBuffer());
    t.is(content.status, 200);
    t.is(digestMultibaseOf(createHash('sha256').update(bytes).digest()), String(presentation.data['digest_multibase']), 'digest_multibase is the digest of the content');
    const vp = JSON.parse(bytes.toString('utf8')) as { '@context': string[]; type: string[]; holder: string; verifiableCredential: { credentialSubject: { name: string } }[]; proof?: unknown };
    t.deepEqual(vp['@context'], ['https://www.w3.org/2018/credentials/v1']);
    t.deepEqual(vp.type, ['VerifiablePresentation', 'MembershipPresentation']);
    t.is(vp.holder, `did:web:localhost%3A8080:tenants:${BOOTSTRAP_TENANT_ID}`);
    t.deepEqual(vp.verifiableCredential.map((c) => c.credentialSubject.name), ['Erika', 'Max'], 'the credentials as imported, in order');
    t.is(vp.proof, undefined, 'unsigned');

    const byType = await post<{ items: Resource[] }>(s, '/presentations/search', { filter: [{ data: { type: { operator: 'IN', values: ['MembershipPresentation'] } } }] });
    t.deepEqual(byType.body.items.map((i) => i.id), [presentation.id]);
    const byLink = await post<{ items: Resource[] }>(s, '/presentations/search', { filter: [{ data: { linked_credentials: { id: { operator: 'EQUAL', value: max.id } } } }] });
    t.deepEqual(byLink.body.items.map((i) => i.id), [presentation.id]);
    const byOther = await post<{ items: Resource[] }>(s, '/presentations/search', { filter: [{ data: { type: { operator: 'IN', values: ['Other'] } } }] });
    t.deepEqual(byOther.body.items, []);

    const labelled = await call(s, `/presentations/${presentation.id}/labels`, { method: 'PUT', headers: { ...json, 'If-Match': presentation.etag }, body: JSON.stringify({ labels: { case: '8' } }) });
    t.is(labelled.status, 200);
    t.is(labelled.body.revision, 2);
    const deleted = await call(s, `/presentations/${presentation.id}`, { method: 'DELETE', headers: { 'If-Match': labelled.body.etag } });
    t.is(deleted.status, 200);
    t.truthy(deleted.body.deleted_at);
    const liveSearch = await post<{ items: Resource[] }>(s, '/presentations/search', {});
    t.deepEqual(liveSearch.body.items, [], 'a deleted presentation is left out of search');
    const restored = await post(s, `/presentations/${presentation.id}/restore`, {}, { 'If-Match': deleted.body.etag });
    t.is(restored.status, 200);
    const history = await call<{ items: Resource[] }>(s, `/presentations/${presentation.id}/history`);
    t.deepEqual(history.body.items.map((i) => i.revision), [1, 2, 3, 4]);
    const first = await call(s, `/presentations/${presentation.id}/revisions/1`);
    t.deepEqual(first.body.data, presentation.data);
  } finally {
    await s.cleanup();
  }
});

test('a presentation\'s content is sealed at rest, kept by the sweeper while live, and once deleted past the restore window shredded: 410, restore refused, history kept', async (t) => {
  const s = await startTestService({ env: { RESTORE_WINDOW_SECONDS: '0', BLOB_SWEEP_INTERVAL_MS: '3600000' } });
  try {
    const one = await credentialOf(s, vc('Presented-claim-5e1d'));
    const two = await credentialOf(s, vc('Other'));
    const presentation = (await post(s, '/presentations', { credentials: [one.id, two.id] })).body;
    const content = await s.management(`/presentations/${presentation.id}/content`);
    t.is(content.status, 200);
    const text = await content.text();
    t.true(text.includes('Presented-claim-5e1d'));
    const blobId = await blobIdOf(s, `verifiablepresentation-${presentation.id}`);
    const sealedDir = join(blobDirectory(s.config), 'sealed');
    t.true((await readdir(sealedDir)).some((name) => name.startsWith(`${blobId}.`)), 'a sealed file of its own');
    for (const needle of ['Presented-claim-5e1d', '"verifiableCredential":[', text]) t.deepEqual(await filesHolding(s.dataDir, needle), [], `not in DATA_DIR in the clear: ${needle.slice(0, 30)}`);

    // The sweeper, a year on: a live presentation's blob is referenced and stays.
    const context = s.service.context;
    const sweep = { store: context.store, dataKeys: context.dataKeys, blobs: await sealedBlobStore(blobDirectory(s.config)), metrics: context.metrics, restoreWindowSeconds: 0 };
    const yearOn = new Date(Date.now() + 365 * 24 * 3600 * 1000);
    await sweepBlobs({ ...sweep, now: () => yearOn }, undefined);
    t.is(await (await s.management(`/presentations/${presentation.id}/content`)).text(), text, 'a live presentation is kept');

    const deleted = await call(s, `/presentations/${presentation.id}`, { method: 'DELETE', headers: { 'If-Match': presentation.etag } });
    t.is(deleted.status, 200);
    t.is((await s.management(`/presentations/${presentation.id}/content`)).status, 410, 'deleted: not served');
    t.is((await sweepBlobs({ ...sweep, now: () => new Date(Date.now() + 1000) }, undefined)).removed, 1, 'shredded past the restore window');
    t.is(await context.dataKeys.find(blobKeyOwner(blobId)), undefined, 'its content key is destroyed');
    t.false((await readdir(sealedDir)).some((name) => name.startsWith(`${blobId}.`)), 'its sealed file is removed');
    const events = await context.store.readStream(blobStream(blobId));
    t.true(events._tag === 'Found' && events.events.some((e) => e.type === 'BlobDiscarded' && (e.data as { reason: string }).reason === 'shredded'));

    const gone = await call<Problem>(s, `/presentations/${presentation.id}/content`);
    t.is(gone.status, 410);
    t.is(gone.body.type, '/problems/content-gone');
    t.regex(gone.body.detail, /erased/);
    const restore = await post<Problem>(s, `/presentations/${presentation.id}/restore`, {}, { 'If-Match': deleted.body.etag });
    t.is(restore.status, 409);
    t.regex(restore.body.detail, /restore window/);
    t.deepEqual((await call<{ items: Resource[] }>(s, `/presentations/${presentation.id}/history`)).body.items.map((i) => i.revision), [1, 2]);
    t.is((await s.management(`/credentials/${one.id}/values`)).status, 200, 'the credentials it held are not touched');
  } finally {
    await s.cleanup();
  }
});

test("a presentation of a credential whose content was erased is refused: 410 locating it, and nothing is made", async (t) => {
  const s = await startTestService();
  try {
    const kept = await credentialOf(s, vc('Kept'));
    const erased = await credentialOf(s, vc('Erased'));
    // What a tenant's erasure does to the credential's content: its key destroyed.
    await s.service.context.dataKeys.destroy(blobKeyOwner(await blobIdOf(s, `credential-${erased.id}`)));
    const refused = await post<Problem>(s, '/presentations', { credentials: [kept.id, erased.id] });
    t.is(refused.status, 410);
    t.is(refused.body.type, '/problems/content-gone');
    t.deepEqual(refused.body.errors?.map((e) => e.location), ['body.credentials[1]']);
    t.deepEqual((await post<{ items: Resource[] }>(s, '/presentations/search', {})).body.items, []);
  } finally {
    await s.cleanup();
  }
});

test("a presentation only of the tenant's live credentials: 404 listing each other id, and nothing is made", async (t) => {
  const s = await startTestService();
  try {
    const kept = await credentialOf(s, vc('Kept'));
    const gone = await credentialOf(s, vc('Gone'));
    await call(s, `/credentials/${gone.id}`, { method: 'DELETE', headers: { 'If-Match': gone.etag } });
    const unknown = randomUUID();
    const refused = await post(s, '/presentations', { credentials: [kept.id, gone.id, unknown] });
    t.is(refused.status, 404);
    t.deepEqual(refused.body.errors?.map((e) => e.location), ['body.credentials[1]', 'body.credentials[2]']);
    const empty = await post(s, '/presentations', { credentials: [] });
    t.is(empty.status, 400);

    const other = await runScript(opsScript, ['tenants', 'create', '--name', 'other', '--json'], { DATA_DIR: s.dataDir });
    const otherKey = (JSON.parse(other.stdout) as { secret: string }).secret;
    let foreign = await post(s, '/presentations', { credentials: [kept.id] }, {}, otherKey);
    for (let i = 0; i < 200 && foreign.status === 401; i++) foreign = await post(s, '/presentations', { credentials: [kept.id] }, {}, otherKey);
    t.is(foreign.status, 404, "another tenant's credential is not found");
    t.deepEqual((await post<{ items: Resource[] }>(s, '/presentations/search', {})).body.items, []);
  } finally {
    await s.cleanup();
  }
});

test('a DIDComm message embeds a presentation: presentations.items holds it, and the recipient decrypts it there', async (t) => {
  const receiver = await startReceiver();
  const s = await withReachablePublicUrl((urls) => startTestService({ env: { ...urls, CALLBACK_RETRY_SCHEDULE: '0,100ms,200ms', CALLBACK_TIMEOUT_SECONDS: '2', DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: 'true' } }));
  try {
    const agent = createAgent(receiver.url);
    const one = await credentialOf(s, vc('One'));
    const two = await credentialOf(s, vc('Two'));
    const presentation = (await post(s, '/presentations', { credentials: [one.id, two.id] })).body;
    const sent = await post<Resource & { data: { presentations: { items: Resource[] } } }>(s, '/didcomm-messages', { data: { to: agent.did, key_id: randomUUID(), presentations: [presentation.id] } });
    t.is(sent.status, 201);
    t.deepEqual(sent.body.data.presentations.items.map((i) => i.id), [presentation.id]);
    t.deepEqual(sent.body.data.presentations.items[0]!.data, presentation.data);

    const state = await eventuallyDelivery(s.service.store, didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id), ended);
    t.is(state.status, 'delivered');
    const { message, metadata } = await unpack(receiver.received[0]!.body, [agent]);
    t.true(metadata.authenticated);
    t.deepEqual((message.body as { presentations: unknown[] }).presentations, [{ id: presentation.id, digest_multibase: presentation.data['digest_multibase'] }]);
    const attached = (message.attachments ?? []).find((a) => a.id === presentation.id);
    t.deepEqual((attached?.data as { json: Resource } | undefined)?.json.data, presentation.data);
  } finally {
    await s.cleanup();
    await receiver.close();
  }
});
