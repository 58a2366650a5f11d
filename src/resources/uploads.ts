// The routes of the two-step blob upload (src/resources/blobUploads.ts holds the use cases):
// `POST /{kind}/upload` on the management API answers the pre-signed `upload_uri`; `PUT
// /blobs/{blobId}` on the public listener takes the bytes.
import Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { BlobPurpose } from '../../streams/blob.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import type { SealedBlobStore } from '../blobStore.js';
import { blobUploads, type BlobUploads } from './blobUploads.js';
import type { ResourcesContext } from './context.js';
import { problemOf } from './problems.js';
import { metadataOf } from './routes.js';

export interface Uploads extends Pick<BlobUploads, 'find'> {
  /** `POST /{path}/upload` for a kind whose resources are made from a blob. */
  readonly uploadRoute: (router: Router, path: string, purpose: BlobPurpose) => void;
  readonly publicRouter: Router;
}

export const uploads = (deps: ResourcesContext, kek: Buffer, blobs: SealedBlobStore): Uploads => {
  const { config } = deps;
  const useCases = blobUploads(
    { store: deps.store, dataKeys: deps.dataKeys, blobs, publicUrl: config.publicUrl, timeoutSeconds: config.blobUploadTimeoutSeconds, maxBytes: config.blobMaxBytes, now: deps.now },
    kek,
  );

  const uploadRoute: Uploads['uploadRoute'] = (router, path, purpose) => {
    router.post(`/${path}/upload`, requireScope('resources'), async (ctx) => {
      await deps.idempotent(ctx, {}, async () => ({ status: 200, body: { ...(await useCases.request(principalOf(ctx).tenantId, purpose, metadataOf(ctx))) }, headers: {} }));
    });
  };

  const put = async (ctx: Context): Promise<void> => {
    const received = await useCases.receive({
      blobId: String(ctx.params['blobId'] ?? ''),
      query: ctx.query,
      contentEncoding: ctx.get('Content-Encoding'),
      contentType: ctx.get('Content-Type'),
      body: ctx.req,
    });
    if (isLeft(received)) throw problemOf(received.left);
    ctx.body = received.right;
  };

  const publicRouter = new Router();
  publicRouter.put('/blobs/:blobId', put);

  return { uploadRoute, publicRouter, find: useCases.find };
};
