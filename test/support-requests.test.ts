// Support requests end to end: the tenant files one over HTTP, the operator sees and works it with
// the ops tool (a child process on the same DATA_DIR, beside the running service), and the tenant
// reads the state and the note. DATA_DUMP: an archive the tenant downloads, every file's digest
// in its manifest (content erased past the restore window listed as erased), sealed on disk, left
// alone by the blob sweeper and gone after its retention. DELETION: the tenant's keys, content
// keys and blob files are gone, nothing of its content is left in DATA_DIR, its streams still
// replay, and another tenant is untouched.
import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { extract } from 'tar-stream';
import { blobKeyOwner } from '../streams/blob.js';
import { blobDirectory, sealedBlobStore } from '../src/blobStore.js';
import { sweepBlobs } from '../src/resources/blobSweeper.js';
import { exportArchives, exportDirectory } from '../src/resources/exportArchives.js';
import { expireExports } from '../src/resources/supportWork.js';
import { draftKeyOwner } from '../streams/draft.js';
import { findSupportRequest } from '../projections/supportRequests.js';
import { eventually } from './support/bounded.js';
import { dumpReadModels, openRunner } from './support/readmodels.js';
import { filesHolding, opsScript, runScript } from './support/processes.js';
import { blobIdOf } from './support/blobs.js';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; data: Record<string, unknown> };
type View = {
  id: string; type: string; status: string; message: string | null; note: string | null; transitions: { status: string; note: string | null }[];
  export: { available: boolean; expires_at: string; files: number; bytes: number; manifest_sha256: string } | null;
  erasure: { resources: number; data_keys: number; blobs: number; api_keys: number } | null;
};
type OpsView = View & { tenant_id: string };

const json = { 'Content-Type': 'application/json' };

const ops = (s: TestService, ...args: string[]) => runScript(opsScript, args, { DATA_DIR: s.dataDir }, { timeoutMs: 90_000 });
const opsJson = async <T>(s: TestService, ...args: string[]): Promise<T> => {
  const result = await ops(s, ...args, '--json');
  if (result.code !== 0) throw new Error(`ops ${args.join(' ')}: ${result.code} ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
};

const as = (s: TestService, key?: string) => ({
  get: (path: string) => s.management(path, key ? { key } : {}),
  post: async <T = Resource>(path: string, body: unknown): Promise<T> => {
    const response = await s.management(path, { method: 'POST', headers: json, body: JSON.stringify(body), ...(key ? { key } : {}) });
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  },
  upload: async (kind: 'files' | 'credentials', content: string): Promise<Resource> => {
    const requested = (await (await s.management(`/${kind}/upload`, { method: 'POST', ...(key ? { key } : {}) })).json()) as { blob_id: string; upload_uri: string };
    const url = new URL(requested.upload_uri);
    const contentType = kind === 'files' ? 'text/plain' : 'application/json';
    await (await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: { 'Content-Type': contentType }, body: content })).text();
    const created = await s.management(`/${kind}?blob_id=${requested.blob_id}`, { method: 'POST', headers: json, body: '{}', ...(key ? { key } : {}) });
    if (created.status !== 201) throw new Error(`create ${kind} ${created.status}`);
    return (await created.json()) as Resource;
  },
});

/** The tenant's view of its request once it reads `status` (the read models follow the store). */
const tenantSees = async (s: TestService, id: string, status: string, key?: string): Promise<View> => {
  let view: View | undefined;
  await eventually(async () => {
    view = (await (await as(s, key).get(`/support-requests/${id}`)).json()) as View;
    return view.status === status;
  });
  return view!;
};

const newTenant = async (s: TestService, name: string): Promise<string> => {
  const created = await opsJson<{ secret: string }>(s, 'tenants', 'create', '--name', name);
  if (!(await eventually(async () => (await s.management('/tenant', { key: created.secret })).status === 200))) throw new Error('the new key never worked');
  return created.secret;
};

const credential = (name: string, secret: string) =>
  JSON.stringify({ '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], issuanceDate: '2026-01-01T00:00:00Z', credentialSubject: { name, secret } });

const membershipOffer = (memberNumber: string) => ({ credential_configuration_id: 'membership', claims: { member_number: memberNumber, given_name: 'Erika', family_name: 'Mustermann' } });

const draftWith = (value: string) => ({ data: { schema: { schema: { type: 'object' } }, values: { note: { kind: 'STRING', value } } } });

const untar = async (archive: Buffer): Promise<Map<string, Buffer>> => {
  const files = new Map<string, Buffer>();
  const reader = extract();
  const done = new Promise<void>((resolve, reject) => {
    reader.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        files.set(header.name, Buffer.concat(chunks));
        next();
      });
    });
    reader.on('finish', resolve);
    reader.on('error', reject);
  });
  Readable.from([archive]).pipe(reader);
  await done;
  return files;
};

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

test('RECTIFICATION and OTHER: the operator lists, reads, starts and resolves or rejects with a note; the tenant reads state and note; nothing else can read it', async (t) => {
  const s = await startTestService();
  try {
    const tenant = as(s);
    const fix = await tenant.post<{ id: string }>('/support-requests', { type: 'RECTIFICATION', message: 'My family name is Mustermann, not Musterman.' });
    const other = await tenant.post<{ id: string }>('/support-requests', { type: 'OTHER', message: 'Please call me.' });
    const open = await tenantSees(s, fix.id, 'OPEN');
    t.like(open, { type: 'RECTIFICATION', message: 'My family name is Mustermann, not Musterman.', note: null, export: null, erasure: null });

    const listed = (await ops(s, 'support', 'list', '--status', 'OPEN', '--json')).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; type: string; status: string });
    t.deepEqual(listed.map((r) => [r.id, r.type, r.status]), [[fix.id, 'RECTIFICATION', 'OPEN'], [other.id, 'OTHER', 'OPEN']]);
    const shown = await opsJson<OpsView>(s, 'support', 'show', fix.id);
    t.is(shown.message, 'My family name is Mustermann, not Musterman.', 'the operator opens the message with the KEK');
    const human = await ops(s, 'support', 'show', fix.id);
    t.regex(human.stdout, /message\s+My family name is Mustermann/);

    t.is((await opsJson<OpsView>(s, 'support', 'start', fix.id, '--note', 'checking the register')).status, 'IN_PROGRESS');
    t.is((await tenantSees(s, fix.id, 'IN_PROGRESS')).note, 'checking the register');
    t.is((await ops(s, 'support', 'start', fix.id)).code, 2, 'started twice: refused');
    t.is((await ops(s, 'support', 'export', fix.id)).code, 2, 'a RECTIFICATION has no export');
    t.is((await ops(s, 'support', 'resolve', fix.id)).code, 2, 'resolve needs --note');
    const resolved = await opsJson<OpsView>(s, 'support', 'resolve', fix.id, '--note', 'family name corrected in our records');
    t.like(resolved, { status: 'DONE', note: 'family name corrected in our records' });
    const done = await tenantSees(s, fix.id, 'DONE');
    t.is(done.note, 'family name corrected in our records');
    t.deepEqual(done.transitions.map((x) => x.status), ['OPEN', 'IN_PROGRESS', 'DONE']);
    t.is((await ops(s, 'support', 'reject', fix.id, '--note', 'too late')).code, 2, 'a closed request takes nothing more');

    t.is((await opsJson<OpsView>(s, 'support', 'reject', other.id, '--note', 'we do not call; write to us')).status, 'REJECTED');
    t.is((await tenantSees(s, other.id, 'REJECTED')).note, 'we do not call; write to us');
    const all = (await (await tenant.get('/support-requests')).json()) as { items: View[] };
    t.deepEqual(all.items.map((i) => [i.id, i.status]), [[fix.id, 'DONE'], [other.id, 'REJECTED']]);

    const stranger = await newTenant(s, 'stranger');
    t.is((await as(s, stranger).get(`/support-requests/${fix.id}`)).status, 404, "another tenant's request is not found");
    t.deepEqual(((await (await as(s, stranger).get('/support-requests')).json()) as { items: View[] }).items, []);
    t.is((await ops(s, 'support', 'show', '00000000-0000-4000-8000-000000000000')).code, 2);
  } finally {
    await s.cleanup();
  }
});

test('DATA_DUMP: the operator exports; the tenant downloads a tar whose manifest lists every file with its SHA-256 and the content erased; sealed on disk; the sweeper leaves it; gone after its retention', async (t) => {
  // No restore window: a deleted file's content is shredded by the next sweep.
  const s = await startTestService({ env: { RESTORE_WINDOW_SECONDS: '0', BLOB_SWEEP_INTERVAL_MS: '20' } });
  try {
    const tenant = as(s);
    const vcBytes = credential('Erika', 'DUMP-CLAIM-5521');
    const vc = await tenant.upload('credentials', vcBytes);
    const file = await tenant.upload('files', 'a file of the tenant');
    const shredded = await tenant.upload('files', 'a file deleted for good');
    t.is((await s.management(`/files/${shredded.id}`, { method: 'DELETE', headers: { 'If-Match': shredded.etag } })).status, 200);
    const shreddedBlob = await blobIdOf(s, `file-${shredded.id}`);
    t.true(await eventually(async () => (await s.service.context.dataKeys.find(blobKeyOwner(shreddedBlob))) === undefined), "the deleted file's content key is destroyed");
    const draft = await tenant.post('/drafts', draftWith('DUMP-DRAFT-VALUE-9'));
    const vp = await tenant.post('/presentations', { credentials: [vc.id] });
    const offer = await tenant.post<{ offer_id: string }>('/offers', membershipOffer('OFFER-CLAIM-6620'));
    const request = await tenant.post<{ id: string }>('/support-requests', { type: 'DATA_DUMP', message: 'Everything you hold about us, please.' });
    await tenantSees(s, request.id, 'OPEN');
    t.is((await tenant.get(`/support-requests/${request.id}/export`)).status, 404, 'no export before the operator made it');
    t.is((await ops(s, 'support', 'erase', request.id)).code, 2, 'a DATA_DUMP is not erased');

    await opsJson(s, 'support', 'start', request.id);
    const exported = await opsJson<OpsView>(s, 'support', 'export', request.id, '--note', 'archive ready for 7 days');
    t.like(exported, { status: 'DONE', note: 'archive ready for 7 days' });
    const view = await tenantSees(s, request.id, 'DONE');
    t.true(view.export?.available);

    const download = await tenant.get(`/support-requests/${request.id}/export`);
    t.is(download.status, 200);
    t.is(download.headers.get('content-type'), 'application/x-tar');
    const archive = Buffer.from(await download.arrayBuffer());
    t.is(archive.length, view.export!.bytes);
    const files = await untar(archive);
    const manifestBytes = files.get('manifest.json')!;
    t.is(sha256(manifestBytes), view.export!.manifest_sha256, 'the manifest is the one recorded');
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as { files: { path: string; size: number; sha256: string }[]; erased: string[] };
    t.deepEqual(manifest.files.map((f) => f.path).sort(), [...files.keys()].filter((p) => p !== 'manifest.json').sort(), 'every file is listed');
    for (const entry of manifest.files) {
      t.is(sha256(files.get(entry.path)!), entry.sha256, `${entry.path}: digest`);
      t.is(files.get(entry.path)!.length, entry.size, `${entry.path}: size`);
    }
    t.deepEqual(manifest.erased, [`resources/file/${shredded.id}/content`], 'content erased past the restore window is listed as erased');
    t.truthy(files.get(`resources/file/${shredded.id}/history.json`), 'its envelopes are exported');
    t.is(files.get(`resources/credential/${vc.id}/content`)!.toString('utf8'), vcBytes);
    t.is(files.get(`resources/file/${file.id}/content`)!.toString('utf8'), 'a file of the tenant');
    t.truthy(files.get(`resources/presentation/${vp.id}/content`));
    t.true(files.get(`resources/draft/${draft.id}/latest.json`)!.toString('utf8').includes('DUMP-DRAFT-VALUE-9'), "a draft's values are opened");
    t.is((JSON.parse(files.get(`resources/credential/${vc.id}/history.json`)!.toString('utf8')) as { items: unknown[] }).items.length, 1);
    const offers = JSON.parse(files.get('connector/offers.json')!.toString('utf8')) as { items: { offer_id: string; status: string }[] };
    t.deepEqual(offers.items.map((o) => [o.offer_id, o.status]), [[offer.offer_id, 'OFFER_CREATED']]);
    t.false(archive.includes(Buffer.from('OFFER-CLAIM-6620')), "an offer's claims are not exported");
    t.truthy(files.get('connector/presentation-requests.json'));
    t.true(files.get('support-requests.json')!.toString('utf8').includes('Everything you hold about us'));

    const stranger = await newTenant(s, 'stranger');
    t.is((await as(s, stranger).get(`/support-requests/${request.id}/export`)).status, 404, "another tenant cannot download the archive");
    t.is((await tenant.get('/support-requests/not-a-uuid/export')).status, 400);

    t.true(archive.includes(Buffer.from('DUMP-CLAIM-5521')), 'the archive as downloaded holds the claim');
    const stored = await filesHolding(exportDirectory(blobDirectory(s.config)), 'DUMP-CLAIM-5521');
    t.deepEqual(stored, [], 'the archive is sealed at rest');

    // The blob sweeper, a year on (every upload long expired), leaves the export archive alone.
    const context = s.service.context;
    const sweep = { store: context.store, dataKeys: context.dataKeys, blobs: await sealedBlobStore(blobDirectory(s.config)), metrics: context.metrics, restoreWindowSeconds: 0 };
    await sweepBlobs({ ...sweep, now: () => new Date(Date.now() + 365 * 24 * 3600 * 1000) }, undefined);
    t.deepEqual(await readdir(exportDirectory(blobDirectory(s.config))), [`${request.id}.sealed`]);
    t.deepEqual(Buffer.from(await (await tenant.get(`/support-requests/${request.id}/export`)).arrayBuffer()), archive, 'the archive still downloads');

    // The retention time passing: the scheduler's run, a year on.
    const archives = exportArchives(exportDirectory(blobDirectory(s.config)));
    const later = new Date(Date.now() + 365 * 24 * 3600 * 1000);
    await eventually(async () => {
      await expireExports({ store: s.service.store, dataKeys: s.service.context.dataKeys, db: s.service.runner.db, archives, now: () => later, metadata: { actor: 'test' } });
      return (await tenant.get(`/support-requests/${request.id}/export`)).status === 410;
    });
    t.is((await tenant.get(`/support-requests/${request.id}/export`)).status, 410);
    t.deepEqual(await readdir(exportDirectory(blobDirectory(s.config))), [], 'the archive file is deleted');
    t.true(await eventually(async () => (await opsJson<OpsView>(s, 'support', 'show', request.id)).export?.available === false));
  } finally {
    await s.cleanup();
  }
});

test('DELETION: the tenant is erased (keys revoked, content keys destroyed, blobs removed, nothing of its content in DATA_DIR); its streams replay; another tenant is untouched', async (t) => {
  const s = await startTestService();
  try {
    const aKey = await newTenant(s, 'leaving');
    const a = as(s, aKey);
    const b = as(s);
    const aCredential = await a.upload('credentials', credential('Anna', 'A-SECRET-CLAIM-4711'));
    const aFile = await a.upload('files', 'A-PRIVATE-FILE-0815');
    const aShared = await a.upload('files', 'a shared attachment');
    const aDraft = await a.post('/drafts', draftWith('A-DRAFT-VALUE-31'));
    const aPresentation = await a.post('/presentations', { credentials: [aCredential.id] });
    const aOffer = await a.post<{ offer_id: string }>('/offers', membershipOffer('A-OFFER-CLAIM-2718'));
    const bOffer = await b.post<{ offer_id: string }>('/offers', membershipOffer('B-OFFER-CLAIM-3141'));
    t.truthy(await s.service.context.dataKeys.find(aOffer.offer_id), "before: the offer's claims key");
    const bCredential = await b.upload('credentials', credential('Bert', 'B-SECRET-CLAIM-1234'));
    const bShared = await b.upload('files', 'a shared attachment');
    const bDraft = await b.post('/drafts', draftWith('B-DRAFT-VALUE-77'));
    const aBlobs = await Promise.all(
      [`credential-${aCredential.id}`, `file-${aFile.id}`, `file-${aShared.id}`, `verifiablepresentation-${aPresentation.id}`].map((stream) => blobIdOf(s, stream)),
    );
    const bBlobs = await Promise.all([`credential-${bCredential.id}`, `file-${bShared.id}`].map((stream) => blobIdOf(s, stream)));
    const sealedDir = join(blobDirectory(s.config), 'sealed');
    const sealedBlobs = async (): Promise<string[]> => (await readdir(sealedDir)).filter((name) => !name.startsWith('.')).map((name) => name.split('.')[0]!).sort();
    t.deepEqual(await sealedBlobs(), [...aBlobs, ...bBlobs].sort(), 'before: a sealed file for each blob');
    for (const blobId of aBlobs) t.truthy(await s.service.context.dataKeys.find(blobKeyOwner(blobId)), 'before: its content key');
    t.deepEqual(await filesHolding(s.dataDir, 'A-SECRET-CLAIM-4711'), [], 'sealed at rest from the start');

    const request = await a.post<{ id: string }>('/support-requests', { type: 'DELETION', message: 'Erase all our data.' });
    await tenantSees(s, request.id, 'OPEN', aKey);
    const listed = (await ops(s, 'support', 'list', '--json')).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; type: string });
    t.deepEqual(listed.map((r) => [r.id, r.type]), [[request.id, 'DELETION']]);
    t.is((await ops(s, 'support', 'export', request.id)).code, 2, 'a DELETION is not exported');
    t.is((await ops(s, 'support', 'resolve', request.id, '--note', 'done by hand')).code, 2, 'a DELETION is erased, not resolved by a note');

    const erased = await opsJson<OpsView>(s, 'support', 'erase', request.id, '--note', 'erased as asked');
    t.like(erased, { status: 'DONE', note: 'erased as asked', message: 'Erase all our data.' });
    t.like(erased.erasure, { api_keys: 1 });
    t.is(erased.erasure!.blobs, 4, 'credential, files and presentation: a blob each, the shared attachment its own');
    t.true(erased.erasure!.data_keys >= 1);

    t.true(await eventually(async () => (await s.management('/tenant', { key: aKey })).status === 401), 'its keys no longer authenticate');
    for (const path of ['/support-requests', `/credentials/${aCredential.id}`, `/credentials/${aCredential.id}/values`, '/presentations/search']) {
      t.is((await s.management(path, { key: aKey })).status, 401, path);
    }
    for (const text of ['A-SECRET-CLAIM-4711', 'A-PRIVATE-FILE-0815', 'A-DRAFT-VALUE-31']) t.deepEqual(await filesHolding(s.dataDir, text), [], `${text} is nowhere in DATA_DIR`);
    for (const blobId of aBlobs) t.is(await s.service.context.dataKeys.find(blobKeyOwner(blobId)), undefined, 'its content keys are destroyed');
    t.deepEqual(await sealedBlobs(), [...bBlobs].sort(), "its blob files are removed, the other tenant's stay");
    t.is(await s.service.context.dataKeys.find(draftKeyOwner(aDraft.id)), undefined, "the draft's key is destroyed");
    t.is(await s.service.context.dataKeys.find(aOffer.offer_id), undefined, "the offer's claims key is destroyed");
    t.truthy(await s.service.context.dataKeys.find(bOffer.offer_id), "the other tenant's offer keeps its claims");

    const shown = await opsJson<OpsView>(s, 'support', 'show', request.id);
    t.like(shown, { status: 'DONE', note: 'erased as asked' });
    t.deepEqual(shown.transitions.map((x) => x.status), ['OPEN', 'DONE']);
    const replay = await ops(s, 'streams', 'read', `credential-${aCredential.id}`, '--json');
    t.is(replay.code, 0, replay.stderr);
    t.true(replay.stdout.includes('CredentialImported'), 'the envelope stays as events');
    t.is((await ops(s, 'streams', 'read', `file-${aFile.id}`, '--json')).code, 0);

    const values = await b.get(`/credentials/${bCredential.id}/values`);
    t.is(values.status, 200);
    t.like(await values.json(), { secret: { kind: 'STRING', value: 'B-SECRET-CLAIM-1234' } });
    const shared = await b.get(`/files/${bShared.id}/revisions/1/blob`);
    t.is(await shared.text(), 'a shared attachment', 'the same content the other tenant uploaded stays');
    t.is(bShared.data['digest_multibase'], aShared.data['digest_multibase']);
    t.truthy(await s.service.context.dataKeys.find(draftKeyOwner(bDraft.id)), "the other tenant's keys stay");
    t.true((await (await b.get(`/drafts/${bDraft.id}`)).text()).includes('B-DRAFT-VALUE-77'));
    t.is((await b.get('/tenant')).status, 200);

    // Every stream still replays: the read models rebuilt from the store equal the service's own.
    const dir = await mkdtemp(join(tmpdir(), 'support-replay-'));
    const runner = openRunner(s.service.store, join(dir, 'readmodels.sqlite'));
    try {
      runner.start();
      await runner.whenCaughtUp();
      t.true(await eventually(async () => JSON.stringify(await dumpReadModels(runner.db)) === JSON.stringify(await dumpReadModels(s.service.runner.db))));
      t.like(findSupportRequest(runner.db, request.id), { status: 'DONE', note: 'erased as asked' });
    } finally {
      await runner.close();
      await rm(dir, { recursive: true, force: true });
    }
  } finally {
    await s.cleanup();
  }
});
