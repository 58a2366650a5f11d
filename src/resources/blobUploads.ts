// Two-step blob upload as use cases, no HTTP (the resource API specification, "Upload response"):
// `request` records a `blob-<id>` stream and answers a pre-signed `upload_uri` on the public
// listener; `receive` checks the URL, seals and stores the bytes PUT there and records them; a
// create then takes the uploaded blob by `blob_id`, once (`find`). The URL is an HMAC (key derived
// from the key-encryption key, so every instance checks it) over method, blob id, tenant and
// expiry: nothing about it is held in memory. The routes are src/resources/uploads.ts.
import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { blob, blobStream, CONTENT_PURPOSE, uploadable, usable, type BlobPurpose, type BlobState, type Command, type UploadedBlob } from '../../streams/blob.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, type EventMetadata, type Loaded } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { BlobTooLarge, type SealedBlobStore } from '../blobStore.js';
import { contentKeyOf, loadBlob } from './blobContent.js';

const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

export interface BlobUploadDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  readonly blobs: SealedBlobStore;
  /** PUBLIC_URL: where the upload URL points. */
  readonly publicUrl: string;
  /** BLOB_UPLOAD_TIMEOUT_SECONDS and BLOB_MAX_BYTES. */
  readonly timeoutSeconds: number;
  readonly maxBytes: number;
  readonly now: () => Date;
}

/** The answer to an upload request: where to PUT the bytes, and for how many seconds. */
export interface UploadTicket {
  readonly blob_id: string;
  readonly upload_uri: string;
  readonly timeout: number;
}

/** A PUT to an upload URL, as received: its path and query, its headers, its body. */
export interface ReceivedUpload {
  readonly blobId: string;
  readonly query: { readonly tenant?: unknown; readonly expires?: unknown; readonly signature?: unknown };
  /** Content-Encoding, '' when absent. */
  readonly contentEncoding: string;
  /** Content-Type, '' when absent. */
  readonly contentType: string;
  readonly body: Readable;
}

export interface StoredUpload {
  readonly blob_id: string;
  readonly digest_multibase: string;
  readonly filesize: number;
}

/** Why an upload was refused; nothing is kept. */
export type UploadRefused =
  /** The URL is expired, or its signature is not the connector's: 403. */
  | { readonly _tag: 'UploadUrlInvalid' }
  /** No upload of this tenant was requested for this blob id: 404. */
  | { readonly _tag: 'UploadNotRequested' }
  /** The bytes were uploaded already (or another PUT to the URL won): 409. */
  | { readonly _tag: 'UploadedAlready' }
  /** A Content-Encoding other than identity: 415. */
  | { readonly _tag: 'ContentEncodingUnsupported' }
  /** More than BLOB_MAX_BYTES: 413. */
  | { readonly _tag: 'BlobTooLarge'; readonly maxBytes: number };

export interface FoundBlob {
  readonly blob: UploadedBlob;
  readonly take: (resourceId: string, metadata: EventMetadata) => Promise<Either<'NotFound', void>>;
}

export interface BlobUploads {
  /** Records the upload of a blob for `purpose` (the kind it will make) and signs its URL. */
  readonly request: (tenantId: string, purpose: BlobPurpose, metadata: EventMetadata) => Promise<UploadTicket>;
  /** Stores and records the bytes PUT to an upload URL, sealed as they arrive. */
  readonly receive: (upload: ReceivedUpload) => Promise<Either<UploadRefused, StoredUpload>>;
  /**
   * The tenant's uploaded, unused, unexpired blob for `purpose`, and `take`, which marks it used
   * by `resourceId` at the revision found (NotFound when another create took it first).
   */
  readonly find: (tenantId: string, blobId: string, purpose: BlobPurpose) => Promise<Either<'NotFound', FoundBlob>>;
}

export const blobUploads = (deps: BlobUploadDeps, kek: Buffer): BlobUploads => {
  const key = Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), 'resource-api blob upload', 32));
  const sign = (blobId: string, tenantId: string, expires: string): string =>
    createHmac('sha256', key).update(`PUT\n${blobId}\n${tenantId}\n${expires}`, 'utf8').digest('base64url');
  const run = (blobId: string, command: Command, metadata: EventMetadata, loaded: Loaded<BlobState>) =>
    handleCommand(deps.store, blob, blobStream(blobId), command, { commandId: randomUUID(), metadata, loaded });

  const request: BlobUploads['request'] = async (tenantId, purpose, metadata) => {
    const blobId = randomUUID();
    const now = deps.now();
    const timeout = deps.timeoutSeconds;
    const expires = new Date(now.getTime() + timeout * 1000);
    // A new id's stream: nothing to read.
    const requested = await run(
      blobId,
      { type: 'RequestUpload', data: { blobId, tenantId, purpose, at: now.toISOString(), expiresAt: expires.toISOString() } },
      metadata,
      { state: blob.initialState, expectedRevision: 'no_stream' },
    );
    if (isLeft(requested)) throw new Error(`blob upload not recorded: ${requested.left.error._tag}`);
    const seconds = String(Math.floor(expires.getTime() / 1000));
    const query = new URLSearchParams({ tenant: tenantId, expires: seconds, signature: sign(blobId, tenantId, seconds) });
    return { blob_id: blobId, upload_uri: `${deps.publicUrl}/blobs/${blobId}?${query}`, timeout };
  };

  const receive: BlobUploads['receive'] = async (upload) => {
    const { blobId } = upload;
    const { tenant, expires, signature } = upload.query;
    if (typeof tenant !== 'string' || typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) return left({ _tag: 'UploadUrlInvalid' });
    const expected = Buffer.from(sign(blobId, tenant, expires), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return left({ _tag: 'UploadUrlInvalid' });
    if (Number(expires) * 1000 <= deps.now().getTime()) return left({ _tag: 'UploadUrlInvalid' });
    const coding = upload.contentEncoding.trim().toLowerCase();
    if (coding !== '' && coding !== 'identity') return left({ _tag: 'ContentEncodingUnsupported' });
    const loaded = await loadBlob(deps.store, blobId);
    // Decided before the bytes are stored, and again on the same state when they are recorded.
    const allowed = uploadable(loaded.state, blobId, tenant);
    if (isLeft(allowed)) return left(allowed.left._tag === 'BlobNotFound' ? { _tag: 'UploadNotRequested' } : { _tag: 'UploadedAlready' });
    const mediaType = upload.contentType.split(';')[0]!.trim().toLowerCase();
    // Sealed as it arrives, with the blob's own data key: the bytes never reach the disk in the clear.
    const content = await contentKeyOf(deps.dataKeys, blobId);
    let stored;
    try {
      stored = await deps.blobs.put(blobId, upload.body, deps.maxBytes, content.sealStream(CONTENT_PURPOSE));
    } catch (err) {
      if (err instanceof BlobTooLarge) return left({ _tag: 'BlobTooLarge', maxBytes: deps.maxBytes });
      throw err;
    }
    const uploaded = await run(
      blobId,
      {
        type: 'RecordUpload',
        data: { blobId, tenantId: tenant, ...stored, contentType: MEDIA_TYPE.test(mediaType) ? mediaType : 'application/octet-stream', uploadedAt: deps.now().toISOString() },
      },
      { actor: 'upload' },
      loaded,
    );
    // Two uploads to one URL at once: the first recorded wins; the other's file is not kept.
    if (isLeft(uploaded)) {
      await deps.blobs.remove(stored.sealedFile);
      return left({ _tag: 'UploadedAlready' });
    }
    return right({ blob_id: blobId, digest_multibase: stored.digestMultibase, filesize: stored.size });
  };

  const find: BlobUploads['find'] = async (tenantId, blobId, purpose) => {
    const loaded = await loadBlob(deps.store, blobId);
    // Unknown, another tenant's, not uploaded, already used, for another kind, or left too long: all 404.
    const found = usable(loaded.state, { blobId, tenantId, purpose, at: deps.now().toISOString() });
    if (isLeft(found)) return left('NotFound');
    const take: FoundBlob['take'] = async (resourceId, metadata) => {
      const use: Command = { type: 'UseBlob', data: { blobId, tenantId, purpose, resourceId, at: deps.now().toISOString() } };
      return isLeft(await run(blobId, use, metadata, loaded)) ? left('NotFound') : right(undefined);
    };
    return right({ blob: found.right, take });
  };

  return { request, receive, find };
};
