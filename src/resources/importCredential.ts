// Importing a credential (the use case, no HTTP): its wire schema, and the CredentialImported of a
// verifiable credential read from an uploaded blob, linked to the tenant's files and credentials
// it names in `relatedResource` (by `digestMultibase`).
import { randomUUID } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest, findLiveByDigest } from '../../projections/resources.js';
import { CREDENTIAL_KIND, type CredentialData, type ImportCredential } from '../../streams/credential.js';
import { DRAFT_KIND } from '../../streams/draft.js';
import { FILE_KIND } from '../../streams/file.js';
import { StringMap } from '../../streams/resource.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { Sqlite } from '../sqlite/connection.js';
import { openBlob, type BlobContentDeps } from './blobContent.js';
import type { BlobNotFound, DraftNotFound } from './problems.js';
import type { BlobUploads } from './blobUploads.js';
import { firstProof, flavorOf, readCredential, typesOf, type NotACredential, type VerifiableCredential } from './verifiableCredential.js';

/** `POST /credentials`: the request's body. */
export const CreateBody = t.partial({ annotations: StringMap, labels: StringMap });

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
  readonly uploads: Pick<BlobUploads, 'find'>;
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

/** Search compares stored timestamps as `toISOString()` text, so they are stored that way. */
const normalised = (dateTime: string | undefined): string | null => (dateTime === undefined ? null : new Date(dateTime).toISOString());
