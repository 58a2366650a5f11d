// The `files` kind: a file is made from an uploaded blob (`POST /files/upload`, PUT the bytes,
// `POST /files?blob_id=`, created in src/resources/createFile.ts); its bytes never change, so every
// revision downloads the same blob.
import type Router from '@koa/router';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { findLatest, findRevision } from '../../projections/resources.js';
import { file, FILE_KIND, fileStream, type CreateFile, type FileEvent } from '../../streams/file.js';
import type { Envelope } from '../../streams/resource.js';
import { loadStream } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { Uuid } from '../http/codecs.js';
import { HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { contentOfResource, deletedContentGone, restoreRefusal, type BlobContentDeps } from './blobContent.js';
import { noneMatchHits } from '../http/conditional.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { etagOfEnvelope } from './envelope.js';
import { claimFileContent, heldAt, releaseFileContentAt } from './fileContent.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { DATA_ID_SORT, type DataSearch } from './search.js';
import { createResource, metadataOf, readableAddressOf, revisionOf, versionedRoutes } from './routes.js';
import type { Uploads } from './uploads.js';
import { problemOf, SAME_CONTENT } from './problems.js';
import { createFile, CreateBody } from './createFile.js';

export const FILE_SEARCH: DataSearch = {
  filters: { content_type: 'EQUAL_STRING', digest_multibase: 'EQUAL_STRING', filename: 'EQUAL_STRING', filesize: 'EQUAL_INTEGER' },
  sorts: { DATA_ID: DATA_ID_SORT, DATA_CONTENT_TYPE: 'content_type', DATA_FILENAME: 'filename', DATA_FILESIZE: 'filesize' },
};

const contentOf = (envelope: Envelope) => ({ tenantId: envelope.tenantId, digestMultibase: String(envelope.data['digest_multibase']), fileId: envelope.id });

/**
 * The files kind. A live file holds its content's claim (src/resources/fileContent.ts, in
 * `store`): delete releases it, and restore claims it again, so restoring a file whose content
 * another live file has meanwhile taken is 409 (and records nothing). Past the restore window a
 * restore is 409 too: the content is erased.
 */
export const filesKind = (store: EventStore, restoreWindowSeconds: number): VersionedKind<FileEvent, KindCommand<CreateFile, never>> => ({
  path: 'files',
  name: FILE_KIND.name,
  scope: 'resources',
  decider: file,
  streamOf: fileStream,
  search: FILE_SEARCH,
  lifecycle: async (op, envelope, at, metadata) => {
    const content = { ...contentOf(envelope), at };
    if (op === 'delete') {
      // Read while the file is live: only a restore of this file can append here after its
      // FileDeleted, and then the release at this revision is refused, as it must be.
      const revision = await heldAt(store, content);
      const release = async () => (revision === undefined ? undefined : releaseFileContentAt(store, content, revision, metadata));
      return right({ appended: release, notAppended: async () => undefined });
    }
    const refusal = restoreRefusal(envelope, at, restoreWindowSeconds);
    if (refusal !== undefined) return left(refusal);
    const claimed = await claimFileContent(store, content, metadata, true);
    if (isLeft(claimed)) return left(SAME_CONTENT);
    return right({
      appended: async () => undefined,
      // A restore of the same file that won the race made it live on this claim: keep it then.
      notAppended: async () => {
        const now = await loadStream(store, file, fileStream(envelope.id));
        if (isLeft(now) || now.right.state.status === 'none' || now.right.state.resource.deletedAt !== null) {
          await releaseFileContentAt(store, content, claimed.right, metadata);
        }
      },
    });
  },
});

export const fileRoutes = (router: Router, deps: ResourcesContext, uploads: Uploads, content: BlobContentDeps): void => {
  const kind = filesKind(deps.store, deps.config.restoreWindowSeconds);
  const scope = requireScope(kind.scope);
  uploads.uploadRoute(router, kind.path, 'file');

  router.post('/files', scope, async (ctx) => {
    const blobId = decode(Uuid, ctx.query['blob_id'], 'query.blob_id').toLowerCase();
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const request = {
      tenantId: principalOf(ctx).tenantId,
      blobId,
      filename: body.data?.filename,
      contentType: body.data?.content_type,
      annotations: body.annotations ?? {},
      labels: body.labels ?? {},
    };
    await deps.idempotent(ctx, body, async () => {
      const created = await createFile({ store: deps.store, uploads, now: deps.now }, request, metadataOf(ctx));
      if (isLeft(created)) throw problemOf(created.left);
      return createResource(deps, kind, ctx, created.right.create.data.fileId, created.right.create, created.right.release);
    });
  });

  router.get('/files/:id/revisions/:revision/blob', scope, async (ctx) => {
    const address = await readableAddressOf(ctx, deps, kind);
    const found = findRevision(deps.runner.db, address, revisionOf(ctx));
    if (!found) throw new HttpError(notFound('No resource of this kind has this id.'));
    // Served while the file is live, whichever revision is asked for.
    const latest = findLatest(deps.runner.db, address);
    if (!latest) throw new HttpError(notFound('No resource of this kind has this id.'));
    if (latest.deletedAt !== null) throw await deletedContentGone(content, 'file', latest);
    const etag = etagOfEnvelope(found);
    ctx.set('ETag', etag);
    if (noneMatchHits(ctx, etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = await contentOfResource(content, 'file', latest);
    // Set as recorded: ctx.type would add a charset the upload never declared.
    ctx.set('Content-Type', String(found.data['content_type']));
    ctx.length = Number(found.data['filesize']);
  });

  versionedRoutes(router, kind, deps);
};
