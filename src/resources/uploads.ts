// Two-step blob upload (the resource API specification, "Upload response"): `POST /{kind}/upload` records
// a `blob-<id>` stream and answers a pre-signed `upload_uri` on the public listener; the client
// PUTs the bytes there; a create then takes the uploaded blob by `blob_id`, once. The URL is an
// HMAC (key derived from the key-encryption key, so every instance checks it) over method, blob
// id, tenant and expiry: nothing about it is held in memory.
import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { blob, blobStream, CONTENT_PURPOSE, uploadable, usable, type BlobPurpose, type BlobState, type Command, type UploadedBlob } from '../../streams/blob.js';
import { handleCommand, type EventMetadata, type Loaded } from '../eventstore/handle.js';
import { conflict, contentTooLarge, forbidden, HttpError, notFound, unsupportedMediaType } from '../http/problem.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { BlobTooLarge, type SealedBlobStore } from '../blobStore.js';
import { contentKeyOf, loadBlob } from './blobContent.js';
import type { ResourcesContext } from './context.js';
import { metadataOf } from './routes.js';

const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

export interface Uploads {
  /** `POST /{path}/upload` for a kind whose resources are made from a blob. */
  readonly uploadRoute: (router: Router, path: string, purpose: BlobPurpose) => void;
  readonly publicRouter: Router;
  /**
   * The tenant's uploaded, unused, unexpired blob for `purpose`, and `take`, which marks it used
   * by `resourceId` at the revision found (NotFound when another create took it first).
   */
  readonly find: (tenantId: string, blobId: string, purpose: BlobPurpose) => Promise<Either<'NotFound', FoundBlob>>;
}

export interface FoundBlob {
  readonly blob: UploadedBlob;
  readonly take: (resourceId: string, metadata: EventMetadata) => Promise<Either<'NotFound', void>>;
}

const run = (deps: ResourcesContext, blobId: string, command: Command, metadata: EventMetadata, loaded: Loaded<BlobState>) =>
  handleCommand(deps.store, blob, blobStream(blobId), command, { commandId: randomUUID(), metadata, loaded });

export const uploads = (deps: ResourcesContext, kek: Buffer, blobs: SealedBlobStore): Uploads => {
  const key = Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), 'resource-api blob upload', 32));
  const sign = (blobId: string, tenantId: string, expires: string): string =>
    createHmac('sha256', key).update(`PUT\n${blobId}\n${tenantId}\n${expires}`, 'utf8').digest('base64url');

  const load = (blobId: string): Promise<Loaded<BlobState>> => loadBlob(deps.store, blobId);

  const uploadRoute: Uploads['uploadRoute'] = (router, path, purpose) => {
    router.post(`/${path}/upload`, requireScope('resources'), async (ctx) => {
      await deps.idempotent(ctx, {}, async () => {
        const blobId = randomUUID();
        const tenantId = principalOf(ctx).tenantId;
        const now = deps.now();
        const timeout = deps.config.blobUploadTimeoutSeconds;
        const expires = new Date(now.getTime() + timeout * 1000);
        // A new id's stream: nothing to read.
        const requested = await run(
          deps,
          blobId,
          { type: 'RequestUpload', data: { blobId, tenantId, purpose, at: now.toISOString(), expiresAt: expires.toISOString() } },
          metadataOf(ctx),
          { state: blob.initialState, expectedRevision: 'no_stream' },
        );
        if (isLeft(requested)) throw new Error(`blob upload not recorded: ${requested.left.error._tag}`);
        const seconds = String(Math.floor(expires.getTime() / 1000));
        const query = new URLSearchParams({ tenant: tenantId, expires: seconds, signature: sign(blobId, tenantId, seconds) });
        return { status: 200, body: { blob_id: blobId, upload_uri: `${deps.config.publicUrl}/blobs/${blobId}?${query}`, timeout }, headers: {} };
      });
    });
  };

  const uploadedAlready = (): HttpError => new HttpError(conflict('This blob has been uploaded already.'));
  const refused = (): HttpError => new HttpError(forbidden('The upload URL is expired or not valid.'));

  const put = async (ctx: Context): Promise<void> => {
    const blobId = String(ctx.params['blobId'] ?? '');
    const { tenant, expires, signature } = ctx.query;
    if (typeof tenant !== 'string' || typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) throw refused();
    const expected = Buffer.from(sign(blobId, tenant, expires), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw refused();
    if (Number(expires) * 1000 <= deps.now().getTime()) throw refused();
    const coding = ctx.get('Content-Encoding').trim().toLowerCase();
    if (coding !== '' && coding !== 'identity') throw new HttpError(unsupportedMediaType('Content-Encoding is not supported.'));
    const loaded = await load(blobId);
    // Decided before the bytes are stored, and again on the same state when they are recorded.
    const allowed = uploadable(loaded.state, blobId, tenant);
    if (isLeft(allowed)) throw allowed.left._tag === 'BlobNotFound' ? new HttpError(notFound()) : uploadedAlready();
    const mediaType = ctx.get('Content-Type').split(';')[0]!.trim().toLowerCase();
    // Sealed as it arrives, with the blob's own data key: the bytes never reach the disk in the clear.
    const key = await contentKeyOf(deps.dataKeys, blobId);
    let stored;
    try {
      stored = await blobs.put(blobId, ctx.req, deps.config.blobMaxBytes, key.sealStream(CONTENT_PURPOSE));
    } catch (err) {
      if (err instanceof BlobTooLarge) throw new HttpError(contentTooLarge(deps.config.blobMaxBytes), { Connection: 'close' });
      throw err;
    }
    const uploaded = await run(
      deps,
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
      await blobs.remove(stored.sealedFile);
      throw uploadedAlready();
    }
    ctx.body = { blob_id: blobId, digest_multibase: stored.digestMultibase, filesize: stored.size };
  };

  const publicRouter = new Router();
  publicRouter.put('/blobs/:blobId', put);

  return {
    uploadRoute,
    publicRouter,
    async find(tenantId, blobId, purpose) {
      const loaded = await load(blobId);
      // Unknown, another tenant's, not uploaded, already used, for another kind, or left too long: all 404.
      const found = usable(loaded.state, { blobId, tenantId, purpose, at: deps.now().toISOString() });
      if (isLeft(found)) return left('NotFound');
      const take: FoundBlob['take'] = async (resourceId, metadata) => {
        const use: Command = { type: 'UseBlob', data: { blobId, tenantId, purpose, resourceId, at: deps.now().toISOString() } };
        return isLeft(await run(deps, blobId, use, metadata, loaded)) ? left('NotFound') : right(undefined);
      };
      return right({ blob: found.right, take });
    },
  };
};
