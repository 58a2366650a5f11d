// Blobs at rest: credential and file content sealed with a data key per blob, opened on the way
// out; clear blobs of earlier versions sealed at start; deletion ends in crypto-shredding once the
// restore window has passed; the sweeper removes what nothing needs; one tenant's content erased.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isLeft } from 'fp-ts/lib/Either.js';
import { blob, blobKeyOwner, blobStream } from '../streams/blob.js';
import { dataKeyStream } from '../streams/dataKey.js';
import { directoryBlobStore, sealedBlobStore } from '../src/blobStore.js';
import { handleCommand } from '../src/eventstore/handle.js';
import { createLogger } from '../src/log.js';
import { eraseTenantBlobs, sweepBlobs, UNREFERENCED_GRACE_MS, type SweepDeps } from '../src/resources/blobSweeper.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { blobIdOf } from './support/blobs.js';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number; deleted_at: string | null; data: Record<string, unknown> };
type Problem = { type: string; status: number; detail: string };

const json = { 'Content-Type': 'application/json' };
const CLAIM = 'Erika-Mustermann-claim-7f3a';
const FILE_TEXT = 'file-content-only-in-a-blob-91c2';

const vc = (name = CLAIM) =>
  JSON.stringify({
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    type: ['VerifiableCredential', 'MembershipCredential'],
    issuer: 'did:web:issuer.example',
    issuanceDate: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', name },
  });

const requestUpload = async (s: TestService, kind: 'credentials' | 'files', key?: string) =>
  (await (await s.management(`/${kind}/upload`, { method: 'POST', ...(key ? { key } : {}) })).json()) as { blob_id: string; upload_uri: string };

const upload = async (s: TestService, kind: 'credentials' | 'files', bytes: string | Buffer, key?: string): Promise<string> => {
  const requested = await requestUpload(s, kind, key);
  const url = new URL(requested.upload_uri);
  const put = await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: { 'Content-Type': kind === 'files' ? 'text/plain' : 'application/json' }, body: bytes });
  if (put.status !== 200) throw new Error(`upload ${put.status}`);
  return requested.blob_id;
};

const create = async (s: TestService, path: string, key?: string) => {
  const response = await s.management(path, { method: 'POST', headers: json, body: '{}', ...(key ? { key } : {}) });
  return { status: response.status, body: (await response.json()) as Resource };
};

const change = async (s: TestService, path: string, method: string, etag: string, body?: unknown) => {
  const response = await s.management(path, { method, headers: { ...json, 'If-Match': etag }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Resource & Problem };
};

const download = (s: TestService, id: string, revision = 1, key?: string) => s.management(`/files/${id}/revisions/${revision}/blob`, key ? { key } : {});

/** Every file under `dir` with its bytes. */
const contents = async (dir: string): Promise<{ path: string; bytes: Buffer }[]> => {
  const files: { path: string; bytes: Buffer }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile()) files.push({ path, bytes: await readFile(path) });
  }
  return files;
};

/** The plaintext as it could be stored: as given, and in the encodings a careless store might use. */
const needles = (text: string): Buffer[] => {
  const bytes = Buffer.from(text, 'utf8');
  return [bytes, Buffer.from(bytes.toString('base64')), Buffer.from(bytes.toString('base64url')), Buffer.from(bytes.toString('hex'))];
};

const foundIn = (files: { path: string; bytes: Buffer }[], texts: string[]): string[] =>
  files.filter(({ bytes }) => texts.flatMap(needles).some((needle) => bytes.includes(needle))).map(({ path }) => path);

/** Polls (bounded) until `check` holds; whether it did. */
const eventually = async (check: () => Promise<boolean>): Promise<boolean> => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
};

const sealedFiles = async (s: TestService): Promise<string[]> => (await readdir(join(s.dataDir, 'blobs', 'sealed'))).filter((name) => !name.startsWith('.'));

const removedMetric = async (s: TestService, reason: string): Promise<number> => {
  const text = await (await s.management('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`connector_blob_files_removed_total{reason="${reason}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
};

test('a copy of DATA_DIR after uploads holds no blob content: credentials, files and unused uploads are sealed, and still read back', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'blobs-at-rest-'));
  const dataDir = join(parent, 'data');
  const s = await startTestService({ dataDir });
  try {
    const credential = await create(s, `/credentials?blob_id=${await upload(s, 'credentials', vc())}`);
    t.is(credential.status, 201);
    const file = await create(s, `/files?blob_id=${await upload(s, 'files', FILE_TEXT)}`);
    t.is(file.status, 201);
    await upload(s, 'credentials', vc(`${CLAIM}-unused`));
    // Larger than one sealing chunk, so more than one chunk is written.
    const large = `${FILE_TEXT}-large-`.repeat(10_000);
    const largeFile = await create(s, `/files?blob_id=${await upload(s, 'files', large)}`);

    const copy = join(parent, 'copy');
    await cp(dataDir, copy, { recursive: true });
    const files = await contents(copy);
    t.true(files.filter(({ path }) => path.includes(join('blobs', 'sealed'))).length >= 4, 'the sealed blobs are in the copy');
    t.deepEqual(foundIn(files, [CLAIM, FILE_TEXT, 'did:example:holder']), []);

    t.is(((await (await s.management(`/credentials/${credential.body.id}/values`)).json()) as { name: { value: string } }).name.value, CLAIM);
    const downloaded = await download(s, file.body.id);
    t.is(downloaded.status, 200);
    t.is(await downloaded.text(), FILE_TEXT);
    t.is(await (await download(s, largeFile.body.id)).text(), large);
    t.is(file.body.data['filesize'], FILE_TEXT.length, 'the size and digest are the plaintext\'s');
  } finally {
    await s.stop();
    await rm(parent, { recursive: true, force: true });
  }
});

test('clear blobs of an earlier version are sealed at the next start, once, and read back; the clear files are gone, a trusted list document stays', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'clear-blobs-'));
  const blobDir = join(dataDir, 'blobs');
  try {
    // What an earlier version left: uploads recorded without a sealed file, their bytes clear under the digest.
    const first = await startTestService({ dataDir });
    const clearStore = await directoryBlobStore(blobDir);
    const legacyUpload = async (kind: 'credentials' | 'files', bytes: string): Promise<{ blobId: string; digest: string }> => {
      const { blob_id: blobId } = await requestUpload(first, kind);
      const stored = await clearStore.put(Readable.from([Buffer.from(bytes)]), 1_000_000);
      const loaded = { state: { status: 'requested', blobId, tenantId: BOOTSTRAP_TENANT_ID, purpose: kind === 'files' ? 'file' : 'credential', expiresAt: '2999-01-01T00:00:00.000Z' }, expectedRevision: 0 } as const;
      const recorded = await handleCommand(
        first.service.store,
        blob,
        blobStream(blobId),
        { type: 'RecordUpload', data: { blobId, tenantId: BOOTSTRAP_TENANT_ID, ...stored, contentType: kind === 'files' ? 'text/plain' : 'application/json', uploadedAt: new Date().toISOString() } },
        { commandId: randomUUID(), metadata: { actor: 'upload' }, loaded },
      );
      if (isLeft(recorded)) throw new Error(`not recorded: ${recorded.left.error._tag}`);
      return { blobId, digest: stored.digestMultibase };
    };
    const legacyFile = await legacyUpload('files', FILE_TEXT);
    const file = await create(first, `/files?blob_id=${legacyFile.blobId}`);
    t.is(file.status, 201);
    const legacyCredential = await legacyUpload('credentials', vc());
    // A document of the trust-list side, under its digest too, that no upload names.
    const document = await clearStore.put(Readable.from([Buffer.from('<TrustServiceStatusList/>')]), 1000);
    await first.stop();
    // This version's first start marked its (empty) store as sealed; an earlier version's store has no such mark.
    await rm(join(blobDir, 'sealed'), { recursive: true });
    t.deepEqual((await readdir(blobDir)).filter((n) => n.startsWith('z')).sort(), [legacyFile.digest, legacyCredential.digest, document.digestMultibase].sort());

    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    const second = await startTestService({ dataDir, log });
    try {
      const sealing = lines.map((l) => JSON.parse(l) as { msg: string; sealed?: number; missing?: number; removed?: number }).find((l) => l.msg === 'clear blobs of earlier versions sealed');
      t.like(sealing, { sealed: 2, missing: 0, removed: 2 });
      t.deepEqual((await readdir(blobDir)).filter((n) => n.startsWith('z')), [document.digestMultibase]);
      t.deepEqual(foundIn(await contents(blobDir), [FILE_TEXT, CLAIM]), []);
      t.is(await (await download(second, file.body.id)).text(), FILE_TEXT);
      const imported = await create(second, `/credentials?blob_id=${legacyCredential.blobId}`);
      t.is(imported.status, 201);
      t.is(((await (await second.management(`/credentials/${imported.body.id}/values`)).json()) as { name: { value: string } }).name.value, CLAIM);
    } finally {
      await second.stop();
    }

    lines.length = 0;
    const third = await startTestService({ dataDir, log });
    try {
      t.false(lines.some((l) => l.includes('clear blobs of earlier versions sealed')), 'sealed once');
      t.is(await (await download(third, file.body.id)).text(), FILE_TEXT);
    } finally {
      await third.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('deleted, then past the restore window: values and download are 410, restore is refused, the key and blob file are gone, history keeps every revision', async (t) => {
  const s = await startTestService({ env: { RESTORE_WINDOW_SECONDS: '0', BLOB_SWEEP_INTERVAL_MS: '20' } });
  try {
    const file = await create(s, `/files?blob_id=${await upload(s, 'files', FILE_TEXT)}`);
    const credential = await create(s, `/credentials?blob_id=${await upload(s, 'credentials', vc())}`);
    const labelled = await change(s, `/files/${file.body.id}/labels`, 'PUT', file.body.etag, { labels: { a: 'b' } });
    t.is(labelled.status, 200);
    t.is((await sealedFiles(s)).length, 2);
    const fileDeleted = await change(s, `/files/${file.body.id}`, 'DELETE', labelled.body.etag);
    const credentialDeleted = await change(s, `/credentials/${credential.body.id}`, 'DELETE', credential.body.etag);
    t.is(fileDeleted.status, 200);
    t.is(credentialDeleted.status, 200);

    t.true(await eventually(async () => (await sealedFiles(s)).length === 0), 'the sweeper removed both blob files');
    for (const stream of [`file-${file.body.id}`, `credential-${credential.body.id}`]) {
      const blobId = await blobIdOf(s, stream);
      t.is((await s.service.store.readStream(dataKeyStream(blobKeyOwner(blobId))))._tag, 'StreamDeleted', 'the content key is destroyed');
      const events = await s.service.store.readStream(blobStream(blobId));
      t.true(events._tag === 'Found' && events.events.some((e) => e.type === 'BlobDiscarded' && (e.data as { reason: string }).reason === 'shredded'));
    }
    t.is(await removedMetric(s, 'shredded'), 2);

    const values = await s.management(`/credentials/${credential.body.id}/values`);
    t.is(values.status, 410);
    const valuesProblem = (await values.json()) as Problem;
    t.like(valuesProblem, { type: '/problems/content-gone', status: 410 });
    t.regex(valuesProblem.detail, /erased/, 'the content is said erased, not restorable');
    for (const revision of [1, 2, 3]) {
      const downloaded = await download(s, file.body.id, revision);
      t.is(downloaded.status, 410);
      t.regex(((await downloaded.json()) as Problem).detail, /erased/);
    }

    const restore = await change(s, `/files/${file.body.id}/restore`, 'POST', fileDeleted.body.etag);
    t.is(restore.status, 409);
    t.regex(restore.body.detail, /restore window/);
    t.is((await change(s, `/credentials/${credential.body.id}/restore`, 'POST', credentialDeleted.body.etag)).status, 409);

    const history = (await (await s.management(`/files/${file.body.id}/history`)).json()) as { items: Resource[] };
    t.deepEqual(history.items.map((r) => r.revision), [1, 2, 3]);
    t.is(history.items[0]!.data['digest_multibase'], file.body.data['digest_multibase']);
    t.is((await s.management(`/credentials/${credential.body.id}/revisions/1`)).status, 200);
  } finally {
    await s.cleanup();
  }
});

test('within the restore window a deleted credential\'s values are 410 and its content stays: restored, it reads again', async (t) => {
  const s = await startTestService();
  try {
    const credential = await create(s, `/credentials?blob_id=${await upload(s, 'credentials', vc())}`);
    const deleted = await change(s, `/credentials/${credential.body.id}`, 'DELETE', credential.body.etag);
    const values = await s.management(`/credentials/${credential.body.id}/values`);
    t.is(values.status, 410);
    t.regex(((await values.json()) as Problem).detail, /restore it/);
    const file = await create(s, `/files?blob_id=${await upload(s, 'files', FILE_TEXT)}`);
    const fileDeleted = await change(s, `/files/${file.body.id}`, 'DELETE', file.body.etag);
    t.is((await download(s, file.body.id)).status, 410);

    // A sweep now leaves the content there.
    const context = s.service.context;
    const blobs = await sealedBlobStore(join(s.dataDir, 'blobs'));
    const sweep = await sweepBlobs({ store: context.store, dataKeys: context.dataKeys, blobs, metrics: context.metrics, restoreWindowSeconds: context.config.restoreWindowSeconds, now: () => new Date() }, undefined);
    t.is(sweep.removed, 0);
    t.is(await removedMetric(s, 'shredded'), 0);
    t.is((await sealedFiles(s)).length, 2);

    t.is((await change(s, `/credentials/${credential.body.id}/restore`, 'POST', deleted.body.etag)).status, 200);
    t.is((await s.management(`/credentials/${credential.body.id}/values`)).status, 200);
    t.is((await change(s, `/files/${file.body.id}/restore`, 'POST', fileDeleted.body.etag)).status, 200);
    t.is(await (await download(s, file.body.id)).text(), FILE_TEXT);
  } finally {
    await s.cleanup();
  }
});

test('the sweeper removes an upload unused for 24 hours and files no blob names once an hour old, and keeps the rest', async (t) => {
  const s = await startTestService();
  try {
    const context = s.service.context;
    const blobs = await sealedBlobStore(join(s.dataDir, 'blobs'));
    let now = new Date();
    const deps: SweepDeps = { store: context.store, dataKeys: context.dataKeys, blobs, metrics: context.metrics, restoreWindowSeconds: 604_800, now: () => now };
    const unused = await upload(s, 'files', 'left unused');
    const file = await create(s, `/files?blob_id=${await upload(s, 'files', FILE_TEXT)}`);
    t.is(file.status, 201);
    // A file no blob stream names (a write cut short, or the loser of two uploads to one URL), and a temporary file.
    const orphan = `${randomUUID()}.${randomUUID()}`;
    const sealedDir = join(s.dataDir, 'blobs', 'sealed');
    await writeFile(join(sealedDir, orphan), 'orphan');
    await writeFile(join(sealedDir, `.upload-${randomUUID()}`), 'temporary');
    const before = await readdir(sealedDir);

    t.is((await sweepBlobs(deps, undefined)).removed, 0, 'nothing is due yet');
    t.deepEqual(await readdir(sealedDir), before);

    now = new Date(Date.now() + UNREFERENCED_GRACE_MS + 1000);
    const old = new Date(Date.now() - UNREFERENCED_GRACE_MS - 1000);
    for (const name of await readdir(sealedDir)) if (!name.startsWith('.clear')) await utimes(join(sealedDir, name), old, old);
    t.is((await sweepBlobs(deps, undefined)).removed, 2, 'the orphan and the temporary file');
    now = new Date(Date.now() + 24 * 60 * 60 * 1000 + 1000);
    // One file per run: the cursor goes on, then starts over.
    const runs = [];
    let after: string | undefined;
    do {
      const run = await sweepBlobs(deps, after, 1);
      runs.push(run.removed);
      after = run.next;
    } while (after !== undefined);
    t.is(runs.reduce((a, b) => a + b, 0), 1, 'the expired upload');
    t.deepEqual((await sealedFiles(s)).map((name) => name.split('.')[0]), [await blobIdOf(s, `file-${file.body.id}`)]);
    t.is(await (await download(s, file.body.id)).text(), FILE_TEXT, 'a live file is kept');
    t.is((await create(s, `/files?blob_id=${unused}`)).status, 404);
    t.is(await removedMetric(s, 'expired'), 1);
    t.is(await removedMetric(s, 'unreferenced'), 2);
  } finally {
    await s.cleanup();
  }
});

test('erasing one tenant\'s blobs destroys its content keys and files; another tenant\'s content is untouched', async (t) => {
  const s = await startTestService();
  try {
    const context = s.service.context;
    const keyOf = async (name: string): Promise<{ tenantId: string; secret: string }> => {
      const tenant = await createTenant(context.store, { name }, { actor: 'test' });
      if (isLeft(tenant)) throw new Error('no tenant');
      const key = await createApiKey(context.store, { tenantId: tenant.right.tenantId, scopes: ['resources'], expiration: null }, { actor: 'test' });
      if (isLeft(key)) throw new Error('no key');
      await s.service.runner.waitFor(key.right.position, 5000);
      return { tenantId: tenant.right.tenantId, secret: key.right.secret };
    };
    const erased = await keyOf('erased');
    const kept = await keyOf('kept');
    const erasedFile = await create(s, `/files?blob_id=${await upload(s, 'files', `${FILE_TEXT}-erased`, erased.secret)}`, erased.secret);
    const erasedCredential = await create(s, `/credentials?blob_id=${await upload(s, 'credentials', vc(), erased.secret)}`, erased.secret);
    await upload(s, 'files', 'an unused upload of the erased tenant', erased.secret);
    const keptFile = await create(s, `/files?blob_id=${await upload(s, 'files', `${FILE_TEXT}-kept`, kept.secret)}`, kept.secret);
    const keptCredential = await create(s, `/credentials?blob_id=${await upload(s, 'credentials', vc(), kept.secret)}`, kept.secret);
    t.is((await sealedFiles(s)).length, 5);

    const blobs = await sealedBlobStore(join(s.dataDir, 'blobs'));
    const count = await eraseTenantBlobs({ store: context.store, dataKeys: context.dataKeys, blobs, metrics: context.metrics, now: () => new Date() }, erased.tenantId);
    t.is(count, 3);
    t.is((await sealedFiles(s)).length, 2);
    t.deepEqual(foundIn(await contents(join(s.dataDir, 'blobs')), [`${FILE_TEXT}-erased`]), []);

    t.is((await download(s, erasedFile.body.id, 1, erased.secret)).status, 410);
    t.is((await s.management(`/credentials/${erasedCredential.body.id}/values`, { key: erased.secret })).status, 410);
    t.is((await s.management(`/files/${erasedFile.body.id}/history`, { key: erased.secret })).status, 200, 'the envelopes stay');
    t.is(await (await download(s, keptFile.body.id, 1, kept.secret)).text(), `${FILE_TEXT}-kept`);
    t.is((await s.management(`/credentials/${keptCredential.body.id}/values`, { key: kept.secret })).status, 200);
    t.is(await eraseTenantBlobs({ store: context.store, dataKeys: context.dataKeys, blobs, metrics: context.metrics, now: () => new Date() }, erased.tenantId), 0, 'again: nothing left');
  } finally {
    await s.cleanup();
  }
});

test('two uploads to one URL at once: one is recorded and its sealed file kept, the other is 409 and leaves no file', async (t) => {
  const s = await startTestService();
  try {
    for (let round = 0; round < 3; round++) {
      const requested = await requestUpload(s, 'files');
      const url = new URL(requested.upload_uri);
      const put = (text: string) => s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: text });
      const answers = await Promise.all([put(`first ${round}`), put(`second ${round}`)]);
      t.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
      const won = (await answers.find((a) => a.status === 200)!.json()) as { digest_multibase: string };
      await answers.find((a) => a.status === 409)!.body?.cancel();
      t.is((await sealedFiles(s)).filter((name) => name.startsWith(requested.blob_id)).length, 1);
      const file = await create(s, `/files?blob_id=${requested.blob_id}`);
      t.is(file.body.data['digest_multibase'], won.digest_multibase);
      t.regex(await (await download(s, file.body.id)).text(), new RegExp(`^(first|second) ${round}$`));
    }
  } finally {
    await s.cleanup();
  }
});

test('a sealed blob copied over another blob\'s file does not open as that blob: the values are not served', async (t) => {
  const s = await startTestService();
  try {
    const first = await create(s, `/credentials?blob_id=${await upload(s, 'credentials', vc('first-holder'))}`);
    const second = await create(s, `/credentials?blob_id=${await upload(s, 'credentials', vc('second-holder'))}`);
    const sealedDir = join(s.dataDir, 'blobs', 'sealed');
    const fileOf = async (id: string) => (await sealedFiles(s)).find((name) => name.startsWith(id))!;
    const firstFile = await fileOf(await blobIdOf(s, `credential-${first.body.id}`));
    const secondFile = await fileOf(await blobIdOf(s, `credential-${second.body.id}`));
    await writeFile(join(sealedDir, secondFile), await readFile(join(sealedDir, firstFile)));
    const values = await s.management(`/credentials/${second.body.id}/values`);
    t.is(values.status, 500);
    t.false((await values.text()).includes('first-holder'));
    t.is((await s.management(`/credentials/${first.body.id}/values`)).status, 200);
  } finally {
    await s.cleanup();
  }
});
