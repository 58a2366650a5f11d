// The `files` kind: a file is made from an uploaded blob (`POST /files/upload`, PUT the bytes,
// `POST /files?blob_id=`); its bytes never change, so every revision downloads the same blob.
import type Router from '@koa/router';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { randomUUID } from 'node:crypto';
import { findRevision } from '../../projections/resources.js';
import { file, FILE_KIND, fileStream, type FileEvent, type FileState } from '../../streams/file.js';
import { StringMap } from '../../streams/resource.js';
import { readJson } from '../http/body.js';
import { Uuid } from '../http/codecs.js';
import { conflict, HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import type { BlobStore } from './blobStore.js';
import { noneMatchHits } from './conditional.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { etagOfEnvelope } from './envelope.js';
import type { VersionedKind } from './kind.js';
import { addressOf, createResource, metadataOf, revisionOf, versionedRoutes } from './routes.js';
import type { Uploads } from './uploads.js';

export const filesKind: VersionedKind<FileState, FileEvent> = {
  path: 'files',
  name: FILE_KIND.name,
  scope: 'resources',
  contract: file,
  streamOf: fileStream,
  envelopeOf: (state) => (state.status === 'none' ? undefined : state.resource),
  search: {
    filters: { content_type: 'EQUAL_STRING', digest_multibase: 'EQUAL_STRING', filename: 'EQUAL_STRING', filesize: 'EQUAL_INTEGER' },
    sorts: { DATA_CONTENT_TYPE: 'content_type', DATA_FILENAME: 'filename', DATA_FILESIZE: 'filesize' },
  },
  events: {
    annotations: (fileId, annotations, updatedAt) => ({ type: 'FileAnnotationsUpdated', data: { fileId, annotations, updatedAt } }),
    labels: (fileId, labels, updatedAt) => ({ type: 'FileLabelsUpdated', data: { fileId, labels, updatedAt } }),
    deleted: (fileId, deletedAt) => ({ type: 'FileDeleted', data: { fileId, deletedAt } }),
    restored: (fileId, restoredAt) => ({ type: 'FileRestored', data: { fileId, restoredAt } }),
  },
};

const Filename = t.refinement(t.string, (s) => s.length >= 1 && s.length <= 255 && !/[/\\\u0000-\u001f]/.test(s), 'a file name (1-255 characters, no / or \\)');
const MediaType = t.refinement(t.string, (s) => /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i.test(s), 'a media type');
const CreateBody = t.partial({ annotations: StringMap, labels: StringMap, data: t.partial({ filename: Filename, content_type: MediaType }) });

export const fileRoutes = (router: Router, deps: ResourcesContext, uploads: Uploads, blobs: BlobStore): void => {
  const scope = requireScope(filesKind.scope);
  uploads.uploadRoute(router, filesKind.path, 'file');

  router.post('/files', scope, async (ctx) => {
    const blobId = decode(Uuid, ctx.query['blob_id'], 'query.blob_id').toLowerCase();
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const found = await uploads.find(tenantId, blobId, 'file');
      if (isLeft(found)) throw new HttpError(notFound('No uploaded, unused blob has this blob_id.'));
      const { blob, revision } = found.right;
      // The spec's 409: one live file per content in a tenant.
      const same = await deps.runner.db.get(
        "SELECT id FROM resources WHERE tenant_id = ? AND kind = ? AND deleted_at IS NULL AND json_extract(data, '$.digest_multibase') = ?",
        [tenantId, filesKind.name, blob.digestMultibase],
      );
      if (same) throw new HttpError(conflict('A file with the same content (digest_multibase) exists.'));
      const fileId = randomUUID();
      const metadata = metadataOf(ctx);
      if (isLeft(await uploads.take(blobId, revision, fileId, metadata))) throw new HttpError(notFound('No uploaded, unused blob has this blob_id.'));
      const created: FileEvent = {
        type: 'FileCreated',
        data: {
          fileId,
          tenantId,
          blobId,
          contentType: body.data?.content_type ?? blob.contentType,
          digestMultibase: blob.digestMultibase,
          filename: body.data?.filename ?? blobId,
          filesize: blob.size,
          annotations: body.annotations ?? {},
          labels: body.labels ?? {},
          createdAt: deps.now().toISOString(),
        },
      };
      return createResource(deps, filesKind, ctx, fileId, created);
    });
  });

  router.get('/files/:id/revisions/:revision/blob', scope, async (ctx) => {
    const found = await findRevision(deps.runner.db, addressOf(ctx, filesKind), revisionOf(ctx));
    if (!found) throw new HttpError(notFound('No resource of this kind has this id.'));
    const etag = etagOfEnvelope(found);
    ctx.set('ETag', etag);
    if (noneMatchHits(ctx, etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = blobs.read(String(found.data['digest_multibase']));
    // Set as recorded: ctx.type would add a charset the upload never declared.
    ctx.set('Content-Type', String(found.data['content_type']));
    ctx.length = Number(found.data['filesize']);
  });

  versionedRoutes(router, filesKind, deps);
};
