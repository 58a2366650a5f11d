// Files: two-step blob upload on the public listener, content-addressed blobs, create from a blob,
// download, and the file kind's shared routes.
import test from 'ava';
import { createHash, randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { base58btc, digestMultibaseOf } from '../src/blobStore.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { startTestService, type TestService } from './support/service.js';

type Upload = { blob_id: string; upload_uri: string; timeout: number };
type FileBody = { id: string; etag: string; revision: number; kind: unknown; data: { content_type: string; digest_multibase: string; filename: string; filesize: number } };

const json = { 'Content-Type': 'application/json' };

/** base58btc by big-integer division: an independent check of the encoder. */
const base58Reference = (bytes: Buffer): string => {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let n = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
};

const requestUpload = async (s: TestService, headers: Record<string, string> = {}, key?: string) => {
  const response = await s.management('/files/upload', { method: 'POST', headers, ...(key ? { key } : {}) });
  return { status: response.status, body: (await response.json()) as Upload };
};

/** The upload URI is on PUBLIC_URL; tests reach the public listener on its loopback port. */
const putBlob = (s: TestService, uploadUri: string, bytes: string | Buffer, contentType = 'text/plain') => {
  const url = new URL(uploadUri);
  return s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: { 'Content-Type': contentType }, body: bytes });
};

const createFile = async (s: TestService, blobId: string, body: unknown = {}, key?: string) => {
  const response = await s.management(`/files?blob_id=${blobId}`, { method: 'POST', headers: json, body: JSON.stringify(body), ...(key ? { key } : {}) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as FileBody };
};

const uploaded = async (s: TestService, bytes: string) => {
  const { body } = await requestUpload(s);
  const put = await putBlob(s, body.upload_uri, bytes);
  if (put.status !== 200) throw new Error(`upload ${put.status}`);
  return body.blob_id;
};

let service: TestService;
test.before(async () => {
  service = await startTestService({ env: { BLOB_MAX_BYTES: '1024' } });
});
test.after.always(async () => {
  await service?.cleanup();
});

test('digest_multibase is z + base58btc of the sha2-256 multihash', (t) => {
  t.is(base58btc(Buffer.from('Hello World!')), '2NEpo7TZRRrLZSi2U');
  t.is(base58btc(Buffer.from([0, 0, 1])), '112');
  for (const text of ['', 'a', 'hello world']) {
    const digest = createHash('sha256').update(text).digest();
    const expected = `z${base58Reference(Buffer.concat([Buffer.from([0x12, 0x20]), digest]))}`;
    t.is(digestMultibaseOf(digest), expected);
    t.true(expected.startsWith('zQm'));
  }
});

test('upload, create, read and download a file', async (t) => {
  const s = service;
  const upload = await requestUpload(s);
  t.is(upload.status, 200);
  t.is(upload.body.timeout, 900);
  t.true(upload.body.upload_uri.startsWith(`${s.config.publicUrl}/blobs/${upload.body.blob_id}?`));
  const put = await putBlob(s, upload.body.upload_uri, 'file content one', 'text/plain; charset=utf-8');
  t.is(put.status, 200);
  const digest = digestMultibaseOf(createHash('sha256').update('file content one').digest());
  t.like(await put.json(), { blob_id: upload.body.blob_id, digest_multibase: digest, filesize: 16 });

  const created = await createFile(s, upload.body.blob_id, { labels: { l: '1' }, data: { filename: 'one.txt' } });
  t.is(created.status, 201);
  t.deepEqual(created.body.kind, { name: 'file', version: 1 });
  t.deepEqual(created.body.data, { content_type: 'text/plain', digest_multibase: digest, filename: 'one.txt', filesize: 16 });
  t.is(created.headers.get('etag'), created.body.etag);
  t.is(created.headers.get('location'), `/files/${created.body.id}`);

  const latest = await s.management(`/files/${created.body.id}`);
  t.deepEqual(await latest.json(), created.body);
  const download = await s.management(`/files/${created.body.id}/revisions/1/blob`);
  t.is(download.status, 200);
  t.is(download.headers.get('content-type'), 'text/plain');
  t.is(download.headers.get('etag'), created.body.etag);
  t.is(await download.text(), 'file content one');
  const cached = await s.management(`/files/${created.body.id}/revisions/1/blob`, { headers: { 'If-None-Match': created.body.etag } });
  t.is(cached.status, 304);
  t.is((await s.management(`/files/${created.body.id}/revisions/2/blob`)).status, 404);

  const annotated = await s.management(`/files/${created.body.id}/annotations`, { method: 'PUT', headers: { ...json, 'If-Match': created.body.etag }, body: JSON.stringify({ annotations: { a: 'b' } }) });
  t.is(annotated.status, 200);
  t.is(((await annotated.json()) as FileBody).revision, 2);
  const found = await s.management('/files/search', { method: 'POST', headers: json, body: JSON.stringify({ filter: [{ data: { filename: { operator: 'EQUAL', value: 'one.txt' }, filesize: { operator: 'EQUAL', value: 16 } } }] }) });
  t.deepEqual(((await found.json()) as { items: FileBody[] }).items.map((i) => i.id), [created.body.id]);
  t.is((await s.management(`/files/${created.body.id}/revisions/2/blob`)).status, 200, 'every revision downloads the same bytes');
});

test('create with an unknown, not uploaded, used or foreign blob_id is 404; a malformed one 400', async (t) => {
  const s = service;
  t.is((await createFile(s, randomUUID())).status, 404);
  const notUploaded = await requestUpload(s);
  t.is((await createFile(s, notUploaded.body.blob_id)).status, 404);
  const blobId = await uploaded(s, 'used once');
  t.is((await createFile(s, blobId)).status, 201);
  t.is((await createFile(s, blobId)).status, 404, 'a blob makes one resource');
  t.is((await createFile(s, 'nope')).status, 400);

  const other = await createTenant(s.service.store, { name: 'other' }, { actor: 'test' });
  if (isLeft(other)) throw new Error('tenant');
  const otherKey = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['resources'], expiration: null }, { actor: 'test' });
  if (isLeft(otherKey)) throw new Error('key');
  await s.service.runner.waitFor(otherKey.right.position, 5000);
  const mine = await uploaded(s, 'not theirs');
  t.is((await createFile(s, mine, {}, otherKey.right.secret)).status, 404);
  t.is((await createFile(s, mine)).status, 201);
});

test('a live file with the same content is 409; once it is deleted the content may come again', async (t) => {
  const s = service;
  const first = await createFile(s, await uploaded(s, 'same bytes'));
  t.is(first.status, 201);
  const second = await uploaded(s, 'same bytes');
  t.is((await createFile(s, second)).status, 409);
  t.is((await s.management(`/files/${first.body.id}`, { method: 'DELETE', headers: { 'If-Match': first.body.etag } })).status, 200);
  t.is((await createFile(s, second)).status, 201, 'the refused create did not use up the blob');
});

test('the upload URL refuses tampering with 403, a second upload with 409, and too many bytes with 413', async (t) => {
  const s = service;
  const { body } = await requestUpload(s);
  const url = new URL(body.upload_uri);
  const tampered = (name: string, value: string) => {
    const copy = new URL(url);
    copy.searchParams.set(name, value);
    return copy.toString();
  };
  t.is((await putBlob(s, tampered('signature', 'A'.repeat(43)), 'x')).status, 403);
  t.is((await putBlob(s, tampered('tenant', randomUUID()), 'x')).status, 403);
  t.is((await putBlob(s, tampered('expires', String(Number(url.searchParams.get('expires')) + 3600)), 'x')).status, 403);
  const otherBlob = new URL(url);
  otherBlob.pathname = `/blobs/${randomUUID()}`;
  t.is((await putBlob(s, otherBlob.toString(), 'x')).status, 403);
  t.is((await putBlob(s, body.upload_uri, Buffer.alloc(1025))).status, 413);
  t.is((await putBlob(s, body.upload_uri, 'fits')).status, 200, 'a refused upload stores nothing');
  t.is((await putBlob(s, body.upload_uri, 'again')).status, 409);
});

test('an Idempotency-Key on upload replays the same blob_id and URL', async (t) => {
  const s = service;
  const key = `${randomUUID()}-${randomUUID()}`;
  const first = await requestUpload(s, { 'Idempotency-Key': key });
  const again = await requestUpload(s, { 'Idempotency-Key': key });
  t.deepEqual(again.body, first.body);
});

test('an expired upload URL is 403', async (t) => {
  const s = await startTestService({ env: { BLOB_UPLOAD_TIMEOUT_SECONDS: '1' } });
  try {
    const { body } = await requestUpload(s);
    // The URL expires within a second of being made: wait past that.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    t.is((await putBlob(s, body.upload_uri, 'late')).status, 403);
    t.is((await createFile(s, body.blob_id)).status, 404);
  } finally {
    await s.cleanup();
  }
});
