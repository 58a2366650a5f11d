// The blob decider in given / when / then form: the events a blob stream already holds, a
// command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, UPLOADED_BLOB_LIFETIME_MS, type BlobEvent, type Command } from '../streams/blob.js';
import { givenWhen, stateAfter } from './support/decider.js';

const BLOB = 'blob-1';
const TENANT = 'tenant-1';
const AT = '2026-05-01T10:00:00.000Z';
const EXPIRES = '2026-05-01T10:15:00.000Z';
const UPLOADED = '2026-05-01T10:05:00.000Z';
const plus = (ms: number): string => new Date(Date.parse(UPLOADED) + ms).toISOString();

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const request: Command = { type: 'RequestUpload', data: { blobId: BLOB, tenantId: TENANT, purpose: 'file', at: AT, expiresAt: EXPIRES } };
const requested: BlobEvent = { type: 'BlobUploadRequested', data: { blobId: BLOB, tenantId: TENANT, purpose: 'file', requestedAt: AT, expiresAt: EXPIRES } };
const stored = { digestMultibase: 'uEiDigest', size: 12, contentType: 'text/plain', uploadedAt: UPLOADED };
const record = (tenantId = TENANT): Command => ({ type: 'RecordUpload', data: { blobId: BLOB, tenantId, ...stored } });
const uploaded: BlobEvent = { type: 'BlobUploaded', data: { blobId: BLOB, ...stored } };
const use = (options: { tenantId?: string; purpose?: 'file' | 'credential'; at?: string } = {}): Command => ({
  type: 'UseBlob',
  data: { blobId: BLOB, tenantId: options.tenantId ?? TENANT, purpose: options.purpose ?? 'file', resourceId: 'file-1', at: options.at ?? plus(1000) },
});
const used: BlobEvent = { type: 'BlobUsed', data: { blobId: BLOB, resourceId: 'file-1', usedAt: plus(1000) } };
const notFound = left({ _tag: 'BlobNotFound', blobId: BLOB });

test('given nothing, when an upload is requested, then BlobUploadRequested; given it, then BlobExists', (t) => {
  t.deepEqual(scenario([], request), right([requested]));
  t.deepEqual(scenario([requested], request), left({ _tag: 'BlobExists', blobId: BLOB }));
});

test('given a requested blob, when its bytes are recorded, then BlobUploaded; given it uploaded or used, then BlobUploadedAlready', (t) => {
  t.deepEqual(scenario([requested], record()), right([uploaded]));
  t.deepEqual(scenario([requested, uploaded], record()), left({ _tag: 'BlobUploadedAlready', blobId: BLOB }));
  t.deepEqual(scenario([requested, uploaded, used], record()), left({ _tag: 'BlobUploadedAlready', blobId: BLOB }));
});

test('given no blob, or another tenant\'s, when bytes are recorded, then BlobNotFound', (t) => {
  t.deepEqual(scenario([], record()), notFound);
  t.deepEqual(scenario([requested], record('tenant-2')), notFound);
});

test('given an uploaded blob, when the create of its kind takes it in time, then BlobUsed', (t) => {
  t.deepEqual(scenario([requested, uploaded], use()), right([used]));
  t.like(stateOf([requested, uploaded, used]), { status: 'used' });
});

test('given a blob not uploaded, used, another tenant\'s, for another kind or left too long, when taken, then BlobNotFound', (t) => {
  t.deepEqual(scenario([], use()), notFound);
  t.deepEqual(scenario([requested], use()), notFound);
  t.deepEqual(scenario([requested, uploaded, used], use()), notFound);
  t.deepEqual(scenario([requested, uploaded], use({ tenantId: 'tenant-2' })), notFound);
  t.deepEqual(scenario([requested, uploaded], use({ purpose: 'credential' })), notFound);
  t.deepEqual(scenario([requested, uploaded], use({ at: plus(UPLOADED_BLOB_LIFETIME_MS) })), notFound);
  t.is(scenario([requested, uploaded], use({ at: plus(UPLOADED_BLOB_LIFETIME_MS - 1) }))._tag, 'Right');
});
