// The `credentials` kind: a verifiable credential imported from an uploaded blob
// (`POST /credentials/upload`, PUT the bytes, `POST /credentials?blob_id=`; the import itself is
// src/resources/importCredential.ts). The blob keeps the credential; the resource describes it and
// links the tenant's files and credentials it names in `relatedResource` (by `digestMultibase`).
import type Router from '@koa/router';
import { buffer } from 'node:stream/consumers';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import { CREDENTIAL_KIND, credentialStream, credential, type CredentialEvent, type ImportCredential } from '../../streams/credential.js';
import { readJson } from '../http/body.js';
import { Uuid } from '../http/codecs.js';
import { HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { contentOfResource, restoreWithinWindow, type BlobContentDeps } from './blobContent.js';
import { DATA_ID_SORT } from './search.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { createResource, metadataOf, readableAddressOf, versionedRoutes } from './routes.js';
import type { Uploads } from './uploads.js';
import { problemOf } from './problems.js';
import { CreateBody, importCredential } from './importCredential.js';
import { claimValues, readCredential } from './verifiableCredential.js';

export const credentialsKind: VersionedKind<CredentialEvent, KindCommand<ImportCredential, never>> = {
  path: 'credentials',
  name: CREDENTIAL_KIND.name,
  scope: 'resources',
  decider: credential,
  streamOf: credentialStream,
  search: {
    filters: {
      digest_multibase: 'EQUAL_STRING',
      type: 'IN_STRINGS',
      valid_from: 'BETWEEN_DATE_TIME',
      valid_until: 'BETWEEN_DATE_TIME',
      linked_credentials: { linked: 'linked_credential_refs' },
      linked_files: { linked: 'linked_file_refs' },
    },
    sorts: { DATA_ID: DATA_ID_SORT, DATA_VALID_FROM: 'valid_from', DATA_VALID_UNTIL: 'valid_until' },
  },
};

export const credentialRoutes = (router: Router, deps: ResourcesContext, uploads: Uploads, content: BlobContentDeps): void => {
  // Restored only within the restore window: past it the content's key is destroyed.
  const kind = { ...credentialsKind, lifecycle: restoreWithinWindow(deps.config.restoreWindowSeconds) };
  const scope = requireScope(kind.scope);
  uploads.uploadRoute(router, credentialsKind.path, 'credential');

  router.post('/credentials', scope, async (ctx) => {
    const blobId = decode(Uuid, ctx.query['blob_id'], 'query.blob_id').toLowerCase();
    const draftId = ctx.query['draft_id'] === undefined ? null : decode(Uuid, ctx.query['draft_id'], 'query.draft_id').toLowerCase();
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const request = { tenantId: principalOf(ctx).tenantId, blobId, draftId, annotations: body.annotations ?? {}, labels: body.labels ?? {} };
    await deps.idempotent(ctx, body, async () => {
      const imported = await importCredential({ db: deps.runner.db, uploads, content, now: deps.now }, request, metadataOf(ctx));
      if (isLeft(imported)) throw problemOf(imported.left);
      return createResource(deps, kind, ctx, imported.right.data.credentialId, imported.right);
    });
  });

  router.get('/credentials/:id/values', scope, async (ctx) => {
    const found = findLatest(deps.runner.db, await readableAddressOf(ctx, deps, kind));
    if (!found) throw new HttpError(notFound('No resource of this kind has this id.'));
    const read = readCredential(await buffer(await contentOfResource(content, 'credential', found)));
    if (isLeft(read)) throw problemOf(read.left);
    ctx.body = claimValues(read.right);
  });

  versionedRoutes(router, kind, deps);
};
