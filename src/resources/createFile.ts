// Creating a file (the use case, no HTTP): its wire schema, and the FileCreated of a new file made
// from an uploaded blob, one live file per content in a tenant.
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { CreateFile } from '../../streams/file.js';
import { StringMap } from '../../streams/resource.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { claimFileContent, releaseFileContentAt } from './fileContent.js';
import type { BlobNotFound, SameContent } from './problems.js';
import type { BlobUploads } from './blobUploads.js';

const Filename = t.refinement(t.string, (s) => s.length >= 1 && s.length <= 255 && !/[/\\\u0000-\u001f]/.test(s), 'a file name (1-255 characters, no / or \\)');
const MediaType = t.refinement(t.string, (s) => /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i.test(s), 'a media type');
/** `POST /files`: the request's body. */
export const CreateBody = t.partial({ annotations: StringMap, labels: StringMap, data: t.partial({ filename: Filename, content_type: MediaType }) });

export type CreateFileError = BlobNotFound | SameContent;

export interface CreateFileRequest {
  readonly tenantId: string;
  readonly blobId: string;
  readonly filename: string | undefined;
  readonly contentType: string | undefined;
  readonly annotations: StringMap;
  readonly labels: StringMap;
}

/** A file about to be created: its creation, and `release`, which gives its content claim up if it is not. */
export interface NewFile {
  readonly create: CreateFile;
  readonly release: () => Promise<void>;
}

/**
 * Claims the uploaded blob's content for a new file and takes the blob: the FileCreated to record,
 * or why not (no such usable blob, or another create took it first; a live file of the tenant
 * with the same content, the spec's 409).
 */
export const createFile = async (
  deps: { readonly store: EventStore; readonly uploads: Pick<BlobUploads, 'find'>; readonly now: () => Date },
  request: CreateFileRequest,
  metadata: EventMetadata,
): Promise<Either<CreateFileError, NewFile>> => {
  const { tenantId, blobId } = request;
  const found = await deps.uploads.find(tenantId, blobId, 'file');
  if (isLeft(found)) return left({ _tag: 'BlobNotFound' });
  const { blob, take } = found.right;
  const fileId = randomUUID();
  // One live file per content in a tenant. The claim is appended first and decides a race
  // (src/resources/fileContent.ts); the blob is taken only after it, so a refused create leaves
  // the blob usable.
  const content = { tenantId, digestMultibase: blob.digestMultibase, fileId, at: deps.now().toISOString() };
  const claimed = await claimFileContent(deps.store, content, metadata);
  if (isLeft(claimed)) return left({ _tag: 'SameContent' });
  // Nobody else appends to the content stream while this new file holds it.
  const release = () => releaseFileContentAt(deps.store, content, claimed.right, metadata);
  if (isLeft(await take(fileId, metadata))) {
    // Another create took the blob between our read and now: this file will not exist.
    await release();
    return left({ _tag: 'BlobNotFound' });
  }
  const create: CreateFile = {
    type: 'CreateFile',
    data: {
      fileId,
      tenantId,
      blobId,
      contentType: request.contentType ?? blob.contentType,
      digestMultibase: blob.digestMultibase,
      filename: request.filename ?? blobId,
      filesize: blob.size,
      annotations: request.annotations,
      labels: request.labels,
      at: deps.now().toISOString(),
    },
  };
  return right({ create, release });
};
