// Two-step blob upload (spec/resource-api.md, "Upload response"): `POST /{kind}/upload` records
// a `blob-<id>` stream and answers a pre-signed `upload_uri` on the public listener; the client
// PUTs the bytes there; a create then takes the uploaded blob by `blob_id`, once. The URL is an
// HMAC (key derived from the key-encryption key, so every instance checks it) over method, blob
// id, tenant and expiry: nothing about it is held in memory.
import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { blob, blobStream, type BlobEvent, type BlobPurpose, type BlobState, type UploadedBlob } from '../../streams/blob.js';
import { appendEvents, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { ExpectedRevision } from '../eventstore/port.js';
import { conflict, contentTooLarge, forbidden, HttpError, notFound, unsupportedMediaType } from '../http/problem.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { BlobTooLarge, type BlobStore } from './blobStore.js';
import type { ResourcesContext } from './context.js';
import { metadataOf } from './routes.js';

/** How long an uploaded blob may wait for the create that takes it. */
export const UPLOADED_BLOB_LIFETIME_MS = 24 * 60 * 60 * 1000;

const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

export interface Uploads {
  /** `POST /{path}/upload` for a kind whose resources are made from a blob. */
  readonly uploadRoute: (router: Router, path: string, purpose: BlobPurpose) => void;
  readonly publicRouter: Router;
  /** The tenant's uploaded, unused, unexpired blob for `purpose`, and the revision to take it at. */
  readonly find: (tenantId: string, blobId: string, purpose: BlobPurpose) => Promise<Either<'NotFound', { blob: UploadedBlob; revision: ExpectedRevision }>>;
  /** Marks the blob used by `resourceId`; NotFound when another create took it first. */
  readonly take: (blobId: string, revision: ExpectedRevision, resourceId: string, metadata: EventMetadata) => Promise<Either<'NotFound', void>>;
}

const appendBlob = (deps: ResourcesContext, blobId: string, event: BlobEvent, expected: ExpectedRevision, metadata: EventMetadata) =>
  appendEvents(deps.store, blobStream(blobId), [event], expected, metadata);

export const uploads = (deps: ResourcesContext, kek: Buffer, blobs: BlobStore): Uploads => {
  const key = Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), 'resource-api blob upload', 32));
  const sign = (blobId: string, tenantId: string, expires: string): string =>
    createHmac('sha256', key).update(`PUT\n${blobId}\n${tenantId}\n${expires}`, 'utf8').digest('base64url');

  const load = async (blobId: string): Promise<{ state: BlobState; revision: ExpectedRevision }> => {
    const loaded = await loadStream(deps.store, blob, blobStream(blobId));
    if (isLeft(loaded)) return { state: { status: 'none' }, revision: 'no_stream' };
    return { state: loaded.right.state, revision: loaded.right.expectedRevision };
  };

  const uploadRoute: Uploads['uploadRoute'] = (router, path, purpose) => {
    router.post(`/${path}/upload`, requireScope('resources'), async (ctx) => {
      await deps.idempotent(ctx, {}, async () => {
        const blobId = randomUUID();
        const tenantId = principalOf(ctx).tenantId;
        const now = deps.now();
        const timeout = deps.config.blobUploadTimeoutSeconds;
        const expires = new Date(now.getTime() + timeout * 1000);
        const requested = await appendBlob(
          deps,
          blobId,
          { type: 'BlobUploadRequested', data: { blobId, tenantId, purpose, requestedAt: now.toISOString(), expiresAt: expires.toISOString() } },
          'no_stream',
          metadataOf(ctx),
        );
        if (isLeft(requested)) throw new Error(`blob upload not recorded: ${requested.left._tag}`);
        const seconds = String(Math.floor(expires.getTime() / 1000));
        const query = new URLSearchParams({ tenant: tenantId, expires: seconds, signature: sign(blobId, tenantId, seconds) });
        return { status: 200, body: { blob_id: blobId, upload_uri: `${deps.config.publicUrl}/blobs/${blobId}?${query}`, timeout }, headers: {} };
      });
    });
  };

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
    const { state, revision } = await load(blobId);
    if (state.status === 'none' || state.tenantId !== tenant) throw new HttpError(notFound());
    if (state.status !== 'requested') throw new HttpError(conflict('This blob has been uploaded already.'));
    const mediaType = ctx.get('Content-Type').split(';')[0]!.trim().toLowerCase();
    let stored;
    try {
      stored = await blobs.put(ctx.req, deps.config.blobMaxBytes);
    } catch (err) {
      if (err instanceof BlobTooLarge) throw new HttpError(contentTooLarge(deps.config.blobMaxBytes), { Connection: 'close' });
      throw err;
    }
    const uploaded = await appendBlob(
      deps,
      blobId,
      {
        type: 'BlobUploaded',
        data: { blobId, ...stored, contentType: MEDIA_TYPE.test(mediaType) ? mediaType : 'application/octet-stream', uploadedAt: deps.now().toISOString() },
      },
      revision,
      { actor: 'upload' },
    );
    // Two uploads to one URL at once: the first recorded wins.
    if (isLeft(uploaded)) throw new HttpError(conflict('This blob has been uploaded already.'));
    ctx.body = { blob_id: blobId, digest_multibase: stored.digestMultibase, filesize: stored.size };
  };

  const publicRouter = new Router();
  publicRouter.put('/blobs/:blobId', put);

  return {
    uploadRoute,
    publicRouter,
    async find(tenantId, blobId, purpose) {
      const { state, revision } = await load(blobId);
      // Unknown, another tenant's, not uploaded, already used, for another kind, or left too long: all 404.
      if (state.status !== 'uploaded' || state.tenantId !== tenantId || state.purpose !== purpose) return left('NotFound');
      if (Date.parse(state.uploadedAt) + UPLOADED_BLOB_LIFETIME_MS <= deps.now().getTime()) return left('NotFound');
      return right({ blob: state, revision });
    },
    async take(blobId, revision, resourceId, metadata) {
      const used = await appendBlob(deps, blobId, { type: 'BlobUsed', data: { blobId, resourceId, usedAt: deps.now().toISOString() } }, revision, metadata);
      return isLeft(used) ? left('NotFound') : right(undefined);
    },
  };
};
