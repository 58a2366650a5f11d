// The `credentials` kind: a verifiable credential imported from an uploaded blob
// (`POST /credentials/upload`, PUT the bytes, `POST /credentials?blob_id=`). The blob keeps the
// credential; the resource describes it and links the tenant's files and credentials it names
// in `relatedResource` (by `digestMultibase`).
import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest, findLiveByDigest } from '../../projections/resources.js';
import { CREDENTIAL_KIND, credentialStream, type CredentialData, credential, type CredentialEvent, type ImportCredential } from '../../streams/credential.js';
import { DRAFT_KIND } from '../../streams/draft.js';
import { FILE_KIND } from '../../streams/file.js';
import { StringMap } from '../../streams/resource.js';
import type { EventMetadata } from '../eventstore/handle.js';
import { readJson } from '../http/body.js';
import { Uuid } from '../http/codecs.js';
import { HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import type { Sqlite } from '../sqlite/connection.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { contentOfResource, openBlob, restoreWithinWindow, type BlobContentDeps } from './blobContent.js';
import { DATA_ID_SORT } from './search.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { createResource, metadataOf, readableAddressOf, versionedRoutes } from './routes.js';
import type { Uploads } from './uploads.js';
import { problemOf, type BlobNotFound, type DraftNotFound } from './problems.js';
import { claimValues, firstProof, flavorOf, readCredential, typesOf, type NotACredential, type VerifiableCredential } from './verifiableCredential.js';

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

const CreateBody = t.partial({ annotations: StringMap, labels: StringMap });

type Ref = CredentialData['linked_file_refs'][number];

/** The tenant's live files and credentials whose digest the credential names as related resources. */
const linksOf = (db: Sqlite, tenantId: string, vc: VerifiableCredential): { files: Ref[]; credentials: Ref[] } => {
  const files: Ref[] = [];
  const credentials: Ref[] = [];
  for (const related of vc.relatedResource ?? []) {
    if (!related.digestMultibase) continue;
    for (const row of findLiveByDigest(db, tenantId, [FILE_KIND.name, CREDENTIAL_KIND.name], related.digestMultibase)) (row.kind === FILE_KIND.name ? files : credentials).push({ digest_multibase: related.digestMultibase, resource_id: row.id });
  }
  return { files, credentials };
};

export type ImportError = BlobNotFound | DraftNotFound | NotACredential;

export interface ImportRequest {
  readonly tenantId: string;
  readonly blobId: string;
  readonly draftId: string | null;
  readonly annotations: StringMap;
  readonly labels: StringMap;
}

/** What an import reads: the read models, the tenant's uploads and the blobs' bytes. */
export interface ImportDeps {
  readonly db: Sqlite;
  readonly uploads: Pick<Uploads, 'find'>;
  readonly content: BlobContentDeps;
  readonly now: () => Date;
}

/**
 * Reads the uploaded blob as a credential and takes it for a new credential resource: the
 * CredentialImported to record, or why not (no such usable blob, or another import took it
 * first; no such draft; not a credential, and then the blob stays usable).
 */
export const importCredential = async (deps: ImportDeps, request: ImportRequest, metadata: EventMetadata): Promise<Either<ImportError, ImportCredential>> => {
  const { tenantId, blobId, draftId } = request;
  const found = await deps.uploads.find(tenantId, blobId, 'credential');
  if (isLeft(found)) return left({ _tag: 'BlobNotFound' });
  if (draftId !== null && !findLatest(deps.db, { tenantId, kind: DRAFT_KIND.name, id: draftId })) return left({ _tag: 'DraftNotFound' });
  const { blob, take } = found.right;
  const opened = await openBlob(deps.content, blobId);
  if (isLeft(opened)) return left({ _tag: 'BlobNotFound' });
  const read = readCredential(await buffer(opened.right));
  if (isLeft(read)) return read;
  const vc = read.right;
  const links = linksOf(deps.db, tenantId, vc);
  const credentialId = randomUUID();
  if (isLeft(await take(credentialId, metadata))) return left({ _tag: 'BlobNotFound' });
  const types = typesOf(vc);
  return right({
    type: 'ImportCredential',
    data: {
      credentialId,
      tenantId,
      blobId,
      draftId,
      data: {
        data_model: {
          flavor_name: flavorOf(vc),
          issuanceDate: vc.issuanceDate ?? null,
          expirationDate: vc.expirationDate ?? null,
          proof: firstProof(vc),
          type: types,
        },
        digest_multibase: blob.digestMultibase,
        linked_credential_refs: links.credentials,
        linked_file_refs: links.files,
        type: types,
        valid_from: normalised(vc.validFrom ?? vc.issuanceDate),
        valid_until: normalised(vc.validUntil ?? vc.expirationDate),
      },
      annotations: request.annotations,
      labels: request.labels,
      at: deps.now().toISOString(),
    },
  });
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

/** Search compares stored timestamps as `toISOString()` text, so they are stored that way. */
const normalised = (dateTime: string | undefined): string | null => (dateTime === undefined ? null : new Date(dateTime).toISOString());
