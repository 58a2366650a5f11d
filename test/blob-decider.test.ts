// The blob decider in given / when / then form: the events a blob stream already holds, a
// command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { contentFileOf, decide, type BlobPurpose, evolve, initialState, UPLOADED_BLOB_LIFETIME_MS, type BlobEvent, type Command } from '../streams/blob.js';
import { restorable } from '../streams/resource.js';
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
const use = (options: { tenantId?: string; purpose?: BlobPurpose; at?: string } = {}): Command => ({
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

test('given nothing, when the service records content it made (a presentation), then requested, uploaded and used at once; given any blob, then BlobExists', (t) => {
  const sealed = { ...stored, contentType: 'application/json', sealedFile: `${BLOB}.file` };
  const made: Command = { type: 'RecordMadeBlob', data: { blobId: BLOB, tenantId: TENANT, purpose: 'presentation', resourceId: 'presentation-1', at: UPLOADED, ...sealed } };
  const events: BlobEvent[] = [
    { type: 'BlobUploadRequested', data: { blobId: BLOB, tenantId: TENANT, purpose: 'presentation', requestedAt: UPLOADED, expiresAt: UPLOADED } },
    { type: 'BlobUploaded', data: { blobId: BLOB, ...sealed } },
    { type: 'BlobUsed', data: { blobId: BLOB, resourceId: 'presentation-1', usedAt: UPLOADED } },
  ];
  t.deepEqual(scenario([], made), right(events));
  t.like(stateOf(events), { status: 'used', purpose: 'presentation', resourceId: 'presentation-1' });
  t.is(contentFileOf(stateOf(events)), `${BLOB}.file`);
  t.deepEqual(scenario([requested], made), left({ _tag: 'BlobExists', blobId: BLOB }));
  t.deepEqual(scenario(events, use({ purpose: 'presentation' })), notFound, 'no create takes it again');
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

const sealedUpload: BlobEvent = { type: 'BlobUploaded', data: { blobId: BLOB, ...stored, sealedFile: 'sealed-1' } };
const seal: Command = { type: 'SealBlob', data: { blobId: BLOB, sealedFile: 'sealed-2', at: plus(5) } };
const sealedAfter: BlobEvent = { type: 'BlobSealed', data: { blobId: BLOB, sealedFile: 'sealed-2', sealedAt: plus(5) } };
const nothingToSeal = left({ _tag: 'NothingToSeal', blobId: BLOB });
const discard = (reason: 'expired' | 'shredded' | 'erased', at: string, resource?: { deletedAt: string | null; restoreWindowSeconds: number }): Command => ({
  type: 'DiscardBlob',
  data: { blobId: BLOB, reason, at, resource },
});
const discarded = (reason: 'expired' | 'shredded' | 'erased', at: string): BlobEvent => ({ type: 'BlobDiscarded', data: { blobId: BLOB, reason, discardedAt: at } });
const notDiscardable = left({ _tag: 'NotDiscardable', blobId: BLOB });

test('given a clear upload of an earlier version, when it is sealed, then BlobSealed names its file; given a sealed one or none, then NothingToSeal', (t) => {
  t.deepEqual(scenario([requested, uploaded], seal), right([sealedAfter]));
  t.deepEqual(scenario([requested, uploaded, used], seal), right([sealedAfter]));
  t.like(stateOf([requested, uploaded, used, sealedAfter]), { status: 'used', sealedFile: 'sealed-2', resourceId: 'file-1' });
  t.deepEqual(scenario([requested, sealedUpload], seal), nothingToSeal);
  t.deepEqual(scenario([requested, uploaded, sealedAfter], seal), nothingToSeal);
  t.deepEqual(scenario([requested], seal), nothingToSeal);
  t.deepEqual(scenario([], seal), nothingToSeal);
});

test('given an upload left unused for 24 hours, when discarded as expired, then BlobDiscarded; not before, and not once used', (t) => {
  const at = plus(UPLOADED_BLOB_LIFETIME_MS);
  t.deepEqual(scenario([requested, sealedUpload], discard('expired', at)), right([discarded('expired', at)]));
  t.deepEqual(scenario([requested, sealedUpload], discard('expired', plus(UPLOADED_BLOB_LIFETIME_MS - 1))), notDiscardable);
  t.deepEqual(scenario([requested, sealedUpload, used], discard('expired', at)), notDiscardable);
  t.deepEqual(scenario([requested], discard('expired', at)), notDiscardable);
});

test('given a used blob, when shredded, then BlobDiscarded only once its resource is deleted and past the restore window', (t) => {
  const given = [requested, sealedUpload, used];
  const deletedAt = plus(10_000);
  t.deepEqual(scenario(given, discard('shredded', plus(10_000 + 60_000), { deletedAt, restoreWindowSeconds: 60 })), right([discarded('shredded', plus(70_000))]));
  t.deepEqual(scenario(given, discard('shredded', plus(10_000 + 59_999), { deletedAt, restoreWindowSeconds: 60 })), notDiscardable);
  t.deepEqual(scenario(given, discard('shredded', plus(10_000), { deletedAt, restoreWindowSeconds: 0 })), right([discarded('shredded', plus(10_000))]));
  t.deepEqual(scenario(given, discard('shredded', plus(999_999), { deletedAt: null, restoreWindowSeconds: 0 })), notDiscardable, 'a live resource');
  t.deepEqual(scenario(given, discard('shredded', plus(999_999))), notDiscardable, 'no resource said');
  t.deepEqual(scenario([requested, sealedUpload], discard('shredded', plus(999_999), { deletedAt, restoreWindowSeconds: 0 })), notDiscardable, 'never used');
});

test('given any blob of a tenant, when erased, then BlobDiscarded once; a discarded blob has no content and cannot be used or uploaded', (t) => {
  for (const given of [[requested], [requested, sealedUpload], [requested, sealedUpload, used]]) {
    t.deepEqual(scenario(given, discard('erased', plus(1))), right([discarded('erased', plus(1))]));
    const after = [...given, discarded('erased', plus(1))];
    t.like(stateOf(after), { status: 'discarded', reason: 'erased' });
    t.is(contentFileOf(stateOf(after)), undefined);
    t.deepEqual(scenario(after, discard('erased', plus(2))), notDiscardable);
    t.deepEqual(scenario(after, record()), left({ _tag: 'BlobUploadedAlready', blobId: BLOB }));
    t.deepEqual(scenario(after, use()), notFound);
    t.deepEqual(scenario(after, seal), nothingToSeal);
  }
  t.deepEqual(scenario([], discard('erased', plus(1))), notDiscardable);
  t.is(contentFileOf(stateOf([requested, sealedUpload, used])), 'sealed-1');
  t.is(contentFileOf(stateOf([requested, uploaded])), undefined, 'a clear upload not sealed yet');
});

test('a deleted resource may be restored until the restore window has passed, not from then', (t) => {
  const deletedAt = '2026-05-01T10:00:00.000Z';
  t.true(restorable(deletedAt, '2026-05-01T10:00:59.999Z', 60));
  t.false(restorable(deletedAt, '2026-05-01T10:01:00.000Z', 60));
  t.false(restorable(deletedAt, deletedAt, 0));
  t.true(restorable(deletedAt, '2026-05-08T09:59:59.999Z', 604_800));
});
