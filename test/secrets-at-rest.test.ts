// What a copy of the data directory gives away: nothing secret. An API key's secret, recorded for
// Idempotency-Key replay, is shredded when the key expires; the key-encryption key is not in
// DATA_DIR; and every file the service creates there is private to its user.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataKeyStream } from '../streams/dataKey.js';
import { idempotencyStream, replyOwner } from '../streams/idempotency.js';
import { open } from '../src/crypto/seal.js';
import { keyHashOf } from '../src/resources/idempotency.js';
import { Sqlite } from '../src/sqlite/connection.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { TEST_KEK_FILE } from './support/kek.js';
import { startTestService, type TestService } from './support/service.js';

// The usual umask, under which a file created without an explicit mode is 0644.
process.umask(0o022);

/** Every path under `dir`, directories included, depth first. */
const walk = async (dir: string): Promise<string[]> => {
  const paths: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    paths.push(path);
    if (entry.isDirectory()) paths.push(...(await walk(path)));
  }
  return paths;
};

const contents = async (dir: string): Promise<{ path: string; bytes: Buffer }[]> => {
  const files: { path: string; bytes: Buffer }[] = [];
  for (const path of await walk(dir)) if ((await stat(path)).isFile()) files.push({ path, bytes: await readFile(path) });
  return files;
};

/** The secret as the bytes it could be stored as. */
const encodings = (secret: string): Buffer[] => {
  const utf8 = Buffer.from(secret, 'utf8');
  // `ck_` + base64url of 32 random bytes: those bytes could be stored raw, too.
  const raw = Buffer.from(secret.replace(/^ck_/, ''), 'base64url');
  return [utf8, raw].flatMap((bytes) => [bytes, Buffer.from(bytes.toString('base64')), Buffer.from(bytes.toString('base64url')), Buffer.from(bytes.toString('hex'))]);
};

const foundIn = (files: { path: string; bytes: Buffer }[], needles: Buffer[]): string[] =>
  files.filter(({ bytes }) => needles.some((needle) => bytes.includes(needle))).map(({ path }) => path);

interface StoredEvent {
  readonly stream_id: string;
  readonly type: string;
  readonly data: string;
}

type SealedJson = { iv: string; ciphertext: string; tag: string; alg: 'A256GCM' };

/**
 * What an attacker holding the copy (and, to be thorough, the key-encryption key as well) can
 * open: every data key in the copied store unwrapped with every key-encryption key candidate,
 * then every recorded idempotent reply opened with its data key. The opened replies.
 */
const openableReplies = (storeFile: string, keks: readonly Buffer[]): string[] => {
  const db = Sqlite.open(storeFile, { synchronous: 'NORMAL' });
  try {
    const events = db.all<StoredEvent & Record<string, string>>('SELECT stream_id, type, data FROM events');
    const dataKeys = new Map<string, Buffer>();
    for (const event of events.filter((e) => e.type === 'DataKeyIssued')) {
      const { ownerId, wrappedKey } = JSON.parse(event.data) as { ownerId: string; wrappedKey: SealedJson };
      for (const kek of keks) {
        try {
          dataKeys.set(ownerId, open(kek, wrappedKey, `datakey/${ownerId}`));
        } catch {
          // Not this key-encryption key.
        }
      }
    }
    const opened: string[] = [];
    for (const event of events.filter((e) => e.type === 'IdempotentReplyRecorded')) {
      const { claimId, reply } = JSON.parse(event.data) as { claimId: string; reply: SealedJson };
      const key = dataKeys.get(replyOwner(claimId));
      if (key) opened.push(open(key, reply, `${replyOwner(claimId)}/idempotent-reply`).toString('utf8'));
    }
    return opened;
  } finally {
    db.close();
  }
};

/** The service's key-encryption key file, base64url; empty where there is none (before it moved out of DATA_DIR). */
const serviceKek = async (): Promise<string> => (await readFile(TEST_KEK_FILE, 'utf8').catch(() => '')).trim();

/** Key-encryption key candidates: whatever in the copy looks like one, and the service's real one. */
const kekCandidates = async (files: { bytes: Buffer }[]): Promise<Buffer[]> =>
  [...files.map(({ bytes }) => bytes.toString('latin1').trim()), await serviceKek()]
    .map((text) => Buffer.from(text, 'base64url'))
    .filter((key) => key.length === 32);

const createApiKey = (s: TestService, idempotencyKey: string) =>
  s.management('/api-keys', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey }, body: '{}' });

/** Polls (bounded) until the stream is tombstoned; whether it is. */
const eventuallyDeleted = async (s: TestService, stream: string): Promise<boolean> => {
  for (let i = 0; i < 400; i++) {
    if ((await s.service.store.readStream(stream))._tag === 'StreamDeleted') return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
};

test('an API key secret kept for Idempotency-Key replay is unrecoverable from a copy of the data directory once the key expired', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'secrets-at-rest-'));
  const dataDir = join(parent, 'data');
  const s = await startTestService({ dataDir, env: { IDEMPOTENCY_KEY_TTL_SECONDS: '1', IDEMPOTENCY_EXPIRY_INTERVAL_MS: '20' } });
  let stopped = false;
  try {
    const idempotencyKey = `${randomUUID()}-${randomUUID()}`;
    const created = await createApiKey(s, idempotencyKey);
    t.is(created.status, 201);
    const createdBody = (await created.json()) as { id: string; data: { secret: string } };
    const secret = createdBody.data.secret;
    t.regex(secret, /^ck_/);

    // The reply was recorded, sealed with a data key of its own.
    const stream = idempotencyStream(keyHashOf(BOOTSTRAP_TENANT_ID, idempotencyKey));
    const read = await s.service.store.readStream(stream);
    const recorded = read._tag === 'Found' ? read.events.find((e) => e.type === 'IdempotentReplyRecorded') : undefined;
    if (!recorded) return t.fail('no reply recorded');
    const owner = replyOwner((recorded.data as { claimId: string }).claimId);
    const keyStream = await s.service.store.readStream(dataKeyStream(owner));
    if (keyStream._tag !== 'Found') return t.fail('the reply has no data key');
    const wrapped = (keyStream.events[0]!.data as { wrappedKey: SealedJson }).wrappedKey;

    t.true(await eventuallyDeleted(s, dataKeyStream(owner)), 'the reply key is destroyed once the key expired');

    // A copy taken while the service runs.
    const live = join(parent, 'copy-live');
    await cp(dataDir, live, { recursive: true });
    const liveFiles = await contents(live);
    t.deepEqual(foundIn(liveFiles, encodings(secret)), []);
    const kek = await serviceKek();
    t.not(kek, '');
    t.deepEqual(foundIn(liveFiles, [Buffer.from(kek), Buffer.from(kek, 'base64url')]), [], 'the key-encryption key is not in the copy');
    const liveReplies = openableReplies(join(live, 'events.sqlite'), await kekCandidates(liveFiles));
    t.deepEqual(liveReplies.filter((reply) => reply.includes(secret)), [], 'no reply opens to the secret');

    // The reply itself stays in the store, encrypted; the same key now runs the request anew.
    const after = await s.service.store.readStream(stream);
    t.true(after._tag === 'Found' && after.events.some((e) => e.type === 'IdempotentReplyRecorded'));
    const again = await createApiKey(s, idempotencyKey);
    t.is(again.status, 201);
    t.is(again.headers.get('idempotent-replayed'), null);
    t.not(((await again.json()) as { id: string }).id, createdBody.id);

    // A copy of the stopped service: the erased key's bytes are gone from every file too. (A live
    // copy can still hold them in the WAL, in the page image from before the erasure, until the
    // next checkpoint; without the key-encryption key, which is not in it, they open nothing.)
    await s.stop();
    stopped = true;
    const cold = join(parent, 'copy-stopped');
    await cp(dataDir, cold, { recursive: true });
    const coldFiles = await contents(cold);
    t.deepEqual(foundIn(coldFiles, [...encodings(secret), Buffer.from(wrapped.ciphertext)]), []);
    t.deepEqual(openableReplies(join(cold, 'events.sqlite'), await kekCandidates(coldFiles)).filter((reply) => reply.includes(secret)), []);
  } finally {
    if (!stopped) await s.stop();
    await rm(parent, { recursive: true, force: true });
  }
});

test('every file and directory the service creates is private to its user: 0600 and 0700, the umask notwithstanding', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'file-modes-'));
  // Directories the service has to make, DATA_DIR's parent included, and a key file of its own.
  const dataDir = join(parent, 'deployment', 'data');
  const kekFile = join(parent, 'config', 'connector', 'kek.key');
  const s = await startTestService({ dataDir, env: { DATA_KEY_ENCRYPTION_KEY_FILE: kekFile } });
  try {
    // A recorded reply, and a blob in the blob store.
    t.is((await createApiKey(s, `${randomUUID()}-${randomUUID()}`)).status, 201);
    const upload = (await (await s.management('/files/upload', { method: 'POST' })).json()) as { upload_uri: string };
    const uri = new URL(upload.upload_uri);
    t.is((await s.wallet(`${uri.pathname}${uri.search}`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'private bytes' })).status, 200);

    // While the service runs, so the WAL and shared-memory files are there too.
    const created = [join(parent, 'deployment'), dataDir, ...(await walk(dataDir)), join(parent, 'config'), join(parent, 'config', 'connector'), kekFile];
    const names = created.map((path) => path.slice(parent.length + 1));
    for (const expected of ['events.sqlite', 'events.sqlite-wal', 'events.sqlite-shm', 'readmodels.sqlite', 'readmodels.sqlite-wal', 'readmodels.sqlite-shm', 'blobs', 'access-identity/key.pem', 'issuer-identity/key.pem']) {
      t.true(names.includes(`deployment/data/${expected}`), expected);
    }
    t.true(names.some((name) => /^deployment\/data\/blobs\/sealed\/[\w-]+\.[\w-]+$/.test(name)), 'a stored blob');
    const modes = await Promise.all(created.map(async (path) => {
      const info = await stat(path);
      return { path: path.slice(parent.length + 1), mode: (info.mode & 0o777).toString(8), expected: info.isDirectory() ? '700' : '600' };
    }));
    t.deepEqual(modes.filter((m) => m.mode !== m.expected), []);
  } finally {
    await s.stop();
    await rm(parent, { recursive: true, force: true });
  }
});

test('a reply whose key expired while no instance ran is shredded when the next one starts', async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'shred-at-start-'));
  const dataDir = join(parent, 'data');
  // One scan at start, the next an hour later: only the scan at start can shred it.
  const env = { IDEMPOTENCY_KEY_TTL_SECONDS: '1', IDEMPOTENCY_EXPIRY_INTERVAL_MS: '3600000' };
  let s = await startTestService({ dataDir, env });
  try {
    const idempotencyKey = `${randomUUID()}-${randomUUID()}`;
    t.is((await createApiKey(s, idempotencyKey)).status, 201);
    const read = await s.service.store.readStream(idempotencyStream(keyHashOf(BOOTSTRAP_TENANT_ID, idempotencyKey)));
    if (read._tag !== 'Found') return t.fail('no idempotency stream');
    const claim = read.events[0]!.data as { claimId: string; expiresAt: string };
    await s.stop();
    const expiresAt = Date.parse(claim.expiresAt);
    while (Date.now() <= expiresAt) await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 1));
    s = await startTestService({ dataDir, env });
    t.true(await eventuallyDeleted(s, dataKeyStream(replyOwner(claim.claimId))));
  } finally {
    await s.stop();
    await rm(parent, { recursive: true, force: true });
  }
});
