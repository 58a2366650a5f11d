// The resource API's other management steps as use cases, without HTTP, on a real embedded store,
// real read models, real data keys and real sealed blobs: drafts (create, update, export), the
// two-step blob upload, the tenant's DID document, DIDComm sending and support requests. Each
// refusal is a value naming what is wrong, and a refused step writes nothing.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { draftKeyOwner } from '../streams/draft.js';
import { etagOf } from '../streams/resource.js';
import { sealedBlobStore } from '../src/blobStore.js';
import { blobUploads, type BlobUploadDeps, type ReceivedUpload } from '../src/resources/blobUploads.js';
import { recordCreation } from '../src/resources/create.js';
import { Create040, createDraft } from '../src/resources/createDraft.js';
import { didDocument, publishedDidDocument, tenantDid } from '../src/resources/didDocument.js';
import { draftsKind } from '../src/resources/drafts.js';
import { ExportBody, exportDraft } from '../src/resources/exportDraft.js';
import { fileSupportRequest, SupportRequestBody } from '../src/resources/fileSupportRequest.js';
import { supportRequestExport, tenantSupportRequest, tenantSupportRequests } from '../src/resources/readSupportRequests.js';
import { SendBody, sendDidcommMessage } from '../src/resources/sendDidcommMessage.js';
import { updateDraft } from '../src/resources/updateDraft.js';
import { updateResource } from '../src/resources/update.js';
import { exportArchives } from '../src/resources/exportArchives.js';
import { createTenant } from '../src/tenancy/commands.js';
import { leftOf, rightOf } from './support/either.js';
import { withWorld as withWorldIn, type World } from './support/useCaseWorld.js';

const TENANT = randomUUID();
const OTHER = randomUUID();
const AT = new Date('2026-05-01T10:00:00.000Z');
const metadata = { actor: 'apikey:key-1', requestId: 'request-1' };
const now = () => AT;

const decoded = <A>(result: Either<unknown, A>): A => {
  if (isLeft(result)) throw new Error('the test request does not decode');
  return result.right;
};

const withWorld = (body: (world: World) => Promise<void>): Promise<void> => withWorldIn('use-cases-management-', body);

test('create draft: a meta_schema the tenant has not published, or both schema and meta_schema, is refused and writes nothing', async (t) => {
  await withWorld(async ({ store, runner, dataKeys }) => {
    const deps = { db: runner.db, dataKeys, now };
    const body = (data: unknown) => decoded(Create040.decode({ data }));
    t.deepEqual(leftOf(await createDraft(deps, { tenantId: TENANT, line: '0.40', body: body({ meta_schema: 'https://schemas.example/s' }) })), { _tag: 'UnpublishedMetaSchema' });
    t.deepEqual(leftOf(await createDraft(deps, { tenantId: TENANT, line: '0.40', body: body({ meta_schema: 'https://schemas.example/s', schema: { schema: {} } }) })), { _tag: 'SchemaChoice' });
    t.deepEqual(await store.readAll(), [], 'no draft, no data key');
  });
});

test('create, update and export a draft: values sealed in the store, merged under the draft\'s key, exported at each revision; another tenant\'s is NotFound', async (t) => {
  await withWorld(async ({ store, runner, dataKeys, read }) => {
    const kind = draftsKind({ dataKeys });
    const body = decoded(
      Create040.decode({
        data: { type: ['MembershipCredential'], meta: { subject: 'did:example:erika' }, values: { name: { kind: 'STRING', value: 'Erika' } }, schema: { schema: { type: 'object' } } },
        labels: { team: 'a' },
      }),
    );
    const create = rightOf(await createDraft({ db: runner.db, dataKeys, now }, { tenantId: TENANT, line: '0.40', body }));
    const id = create.data.draftId;
    t.false(JSON.stringify(create).includes('Erika'), 'the values are sealed');
    t.truthy(await dataKeys.find(draftKeyOwner(id)), 'the draft has its data key');
    const created = await recordCreation(store, kind, id, create, metadata);
    t.like(created.envelope, { id, tenantId: TENANT, revision: 1, labels: { team: 'a' } });

    const patch = { data: { values: { name: { kind: 'STRING' as const, value: 'Erika Mustermann' } }, type: ['PidCredential'] } };
    t.deepEqual(leftOf(await updateDraft({ store, dataKeys }, { tenantId: OTHER, id }, patch)), { _tag: 'NotFound' });
    t.deepEqual(leftOf(await updateDraft({ store, dataKeys }, { tenantId: TENANT, id: randomUUID() }, patch)), { _tag: 'NotFound' });
    const change = rightOf(await updateDraft({ store, dataKeys }, { tenantId: TENANT, id }, patch));
    t.false(JSON.stringify(change).includes('Mustermann'));
    const updated = rightOf(await updateResource(store, kind, { tenantId: TENANT, id, ifMatch: (etag) => etag === etagOf(id, 1), at: AT.toISOString() }, change, metadata));
    t.is(updated.envelope.revision, 2);
    await read(updated.position);

    const exportDeps = { db: runner.db, dataKeys, now };
    const request = decoded(ExportBody.decode({ issuer: 'https://issuer.example' }));
    const address = { tenantId: TENANT, kind: kind.name, id };
    t.like(rightOf(await exportDraft(exportDeps, address, 1, request)), {
      type: ['VerifiableCredential', 'MembershipCredential'],
      issuer: 'https://issuer.example',
      issuanceDate: AT.toISOString(),
      credentialSubject: { id: 'did:example:erika', name: 'Erika' },
    });
    t.like(rightOf(await exportDraft(exportDeps, address, 2, request)), { type: ['VerifiableCredential', 'PidCredential'], credentialSubject: { id: 'did:example:erika', name: 'Erika Mustermann' } });
    t.deepEqual(leftOf(await exportDraft(exportDeps, address, 3, request)), { _tag: 'NotFound' });
    t.deepEqual(leftOf(await exportDraft(exportDeps, { ...address, tenantId: OTHER }, 1, request)), { _tag: 'NotFound' });
  });
});

test('blob upload: the signed URL takes the bytes once, sealed; a forged, foreign or expired URL, an encoding or too many bytes are refused and keep nothing', async (t) => {
  await withWorld(async ({ dir, store, dataKeys, kek }) => {
    const blobs = await sealedBlobStore(join(dir, 'blobs'));
    let clock = AT;
    const deps: BlobUploadDeps = { store, dataKeys, blobs, publicUrl: 'https://connector.example', timeoutSeconds: 900, maxBytes: 16, now: () => clock };
    const uploads = blobUploads(deps, kek);
    const ticket = await uploads.request(TENANT, 'file', metadata);
    t.is(ticket.timeout, 900);
    const url = new URL(ticket.upload_uri);
    t.is(`${url.origin}${url.pathname}`, `https://connector.example/blobs/${ticket.blob_id}`);
    const query = Object.fromEntries(url.searchParams);
    const put = (bytes: string, overrides: Partial<ReceivedUpload> = {}): ReceivedUpload => ({
      blobId: ticket.blob_id,
      query,
      contentEncoding: '',
      contentType: 'text/plain; charset=utf-8',
      body: Readable.from([Buffer.from(bytes)]),
      ...overrides,
    });

    t.deepEqual(leftOf(await uploads.receive(put('x', { query: { ...query, signature: `${query['signature']!.slice(0, -2)}AA` } }))), { _tag: 'UploadUrlInvalid' });
    t.deepEqual(leftOf(await uploads.receive(put('x', { query: { ...query, tenant: OTHER } }))), { _tag: 'UploadUrlInvalid' }, 'the signature names the tenant');
    t.deepEqual(leftOf(await uploads.receive(put('x', { blobId: randomUUID() }))), { _tag: 'UploadUrlInvalid' }, 'and the blob');
    t.deepEqual(leftOf(await uploads.receive(put('x', { query: {} }))), { _tag: 'UploadUrlInvalid' });
    t.deepEqual(leftOf(await uploads.receive(put('x', { contentEncoding: 'gzip' }))), { _tag: 'ContentEncodingUnsupported' });
    t.deepEqual(leftOf(await uploads.receive(put('seventeen bytes!!'))), { _tag: 'BlobTooLarge', maxBytes: 16 });
    t.deepEqual(await blobs.list(), [], 'nothing refused is kept');
    t.deepEqual(leftOf(await uploads.find(TENANT, ticket.blob_id, 'file')), 'NotFound', 'not uploaded yet');

    const stored = rightOf(await uploads.receive(put('sixteen bytes!!!')));
    t.like(stored, { blob_id: ticket.blob_id, filesize: 16 });
    t.regex(stored.digest_multibase, /^zQm/);
    t.deepEqual(leftOf(await uploads.receive(put('again'))), { _tag: 'UploadedAlready' });
    t.is((await blobs.list()).length, 1);

    t.like(rightOf(await uploads.find(TENANT, ticket.blob_id, 'file')).blob, { contentType: 'text/plain', size: 16 });
    t.deepEqual(leftOf(await uploads.find(OTHER, ticket.blob_id, 'file')), 'NotFound');
    t.deepEqual(leftOf(await uploads.find(TENANT, ticket.blob_id, 'credential')), 'NotFound', 'uploaded for another kind');

    const late = await uploads.request(TENANT, 'file', metadata);
    clock = new Date(AT.getTime() + 901_000);
    const lateQuery = Object.fromEntries(new URL(late.upload_uri).searchParams);
    t.deepEqual(leftOf(await uploads.receive(put('x', { blobId: late.blob_id, query: lateQuery }))), { _tag: 'UploadUrlInvalid' }, 'expired');
  });
});

test('DID document: a tenant\'s resolves with keys derived from the key-encryption key; an id that is no tenant\'s is TenantNotFound', async (t) => {
  await withWorld(async ({ store, runner, kek, read }) => {
    const tenant = rightOf(await createTenant(store, { name: 'did' }, metadata));
    await read(tenant.position);
    const deps = { db: runner.db, publicUrl: 'https://connector.example:8443/base', kek };
    const document = rightOf(publishedDidDocument(deps, tenant.tenantId)) as { id: string; verificationMethod: { id: string; publicKeyJwk: Record<string, string> }[]; keyAgreement: string[] };
    t.is(document.id, `did:web:connector.example%3A8443:base:tenants:${tenant.tenantId}`);
    t.is(document.id, tenantDid(deps.publicUrl, tenant.tenantId));
    t.like(document.verificationMethod[0]!.publicKeyJwk, { kty: 'EC', crv: 'P-256' });
    t.like(document.verificationMethod[1]!.publicKeyJwk, { kty: 'OKP', crv: 'X25519' });
    t.deepEqual(document.keyAgreement, [document.verificationMethod[1]!.id]);
    t.deepEqual(didDocument(deps.publicUrl, kek, tenant.tenantId), document, 'every instance derives the same');
    t.notDeepEqual(didDocument(deps.publicUrl, randomBytes(32), tenant.tenantId), document, 'another key-encryption key, other keys');
    t.deepEqual(leftOf(publishedDidDocument(deps, randomUUID())), { _tag: 'TenantNotFound' });
  });
});

test('send DIDComm message: a recipient the connector could never send to, or a named resource that is not the tenant\'s, is refused and nothing is issued; else the recipient is sealed', async (t) => {
  await withWorld(async ({ store, runner, dataKeys }) => {
    const deps = { db: runner.db, dataKeys, publicUrl: 'https://connector.example', allowPrivateNetworks: false, now };
    const body = (data: Record<string, unknown>) => decoded(SendBody.decode({ data: { key_id: randomUUID(), ...data } }));
    t.like(leftOf(await sendDidcommMessage(deps, TENANT, body({ to: 'did:example:123' }))), { _tag: 'RecipientRefused', refused: { _tag: 'UnsupportedDidMethod', method: 'example' } });
    t.like(leftOf(await sendDidcommMessage(deps, TENANT, body({ to: 'did:peer:0z6Mk' }))), { _tag: 'RecipientRefused', refused: { _tag: 'UnsupportedDidMethod' } });
    const missing = [randomUUID()];
    t.deepEqual(leftOf(await sendDidcommMessage(deps, TENANT, body({ to: 'did:web:recipient.example', files: missing }))), {
      _tag: 'ReferencesMissing',
      missing: [{ location: 'body.data.files[0]', message: 'no file of this tenant has this id', value: missing[0] }],
    });
    t.deepEqual(await store.readAll(), [], 'no data key issued');

    const sent = rightOf(await sendDidcommMessage(deps, TENANT, body({ to: 'did:web:recipient.example' })));
    t.is(sent.data.from, tenantDid(deps.publicUrl, TENANT));
    t.false(JSON.stringify(sent).includes('recipient.example'), 'the recipient is sealed');
    t.deepEqual(sent.data.credentials, { items: [] });
  });
});

test('support requests: filed with the message sealed, read back by the tenant only; an export is NoExport until one is made', async (t) => {
  await withWorld(async ({ dir, store, runner, dataKeys, read }) => {
    const body = decoded(SupportRequestBody.decode({ type: 'DATA_DUMP', message: 'Everything, please.' }));
    const filed = await fileSupportRequest({ store, dataKeys, now }, TENANT, body, metadata);
    t.like(filed, { type: 'DATA_DUMP', createdAt: AT.toISOString() });
    const recorded = await store.readAll();
    t.false(JSON.stringify(recorded.map((e) => e.data)).includes('Everything'), 'the message is sealed in the store');
    await read(filed.position);

    const deps = { db: runner.db, dataKeys, archives: exportArchives(join(dir, 'exports')), now };
    t.like(rightOf(await tenantSupportRequest(deps, TENANT, filed.requestId)), { id: filed.requestId, type: 'DATA_DUMP', message: 'Everything, please.' });
    t.deepEqual((await tenantSupportRequests(deps, TENANT)).map((r) => r.id), [filed.requestId]);
    t.deepEqual(await tenantSupportRequests(deps, OTHER), []);
    t.deepEqual(leftOf(await tenantSupportRequest(deps, OTHER, filed.requestId)), { _tag: 'SupportRequestNotFound' });
    t.deepEqual(leftOf(await supportRequestExport(deps, OTHER, filed.requestId)), { _tag: 'SupportRequestNotFound' });
    t.deepEqual(leftOf(await supportRequestExport(deps, TENANT, filed.requestId)), { _tag: 'NoExport' });
  });
});
