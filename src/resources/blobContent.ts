// The content of credentials, files and presentations: blobs sealed with a data key of their own
// (`datakey-blob.<blob id>`, wrapped by the key-encryption key like every data key), in the
// sealed blob store (src/blobStore.ts). Downloads open them on the way out; deletion ends in
// crypto-shredding: once a deleted resource is past the restore window (RESTORE_WINDOW_SECONDS)
// the sweeper (src/resources/blobSweeper.ts) records BlobDiscarded, destroys the key and removes
// the file. The order matters: the event first (the blob stream then says the content is gone,
// and a concurrent take of an expired upload loses on the expected revision), then the key (from
// then nothing opens, whatever copy of the file exists), then the file.
import { randomUUID } from 'node:crypto';
import { pipeline, type Readable } from 'node:stream';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { blob, blobKeyOwner, blobStream, contentFileOf, CONTENT_PURPOSE, type BlobPurpose, type BlobState, type Command, type DiscardReason, type ResourceOfBlob } from '../../streams/blob.js';
import { CredentialEvent, credentialStream } from '../../streams/credential.js';
import { decodeRecorded } from '../../streams/event.js';
import { FileEvent, fileStream } from '../../streams/file.js';
import { restorable, type Envelope } from '../../streams/resource.js';
import { presentationResourceStream, PresentationResourceEvent } from '../../streams/verifiablePresentation.js';
import type { DataKeys, StreamDataKey } from '../crypto/dataKeys.js';
import type { SealedBlobStore } from '../blobStore.js';
import { handleCommand, loadStream, type Loaded } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { HttpError, problem } from '../http/problem.js';
import type { VersionedKind } from './kind.js';

export interface BlobContentDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  readonly blobs: SealedBlobStore;
}

/** The service's own bookkeeping: sealing, sweeping, erasing. */
const SERVICE = { actor: 'service' };

export const loadBlob = async (store: EventStore, blobId: string): Promise<Loaded<BlobState>> => {
  const loaded = await loadStream(store, blob, blobStream(blobId));
  return isLeft(loaded) ? { state: blob.initialState, expectedRevision: 'no_stream' } : loaded.right;
};

/** Runs a command of the service on the blob stream at the revision loaded. */
export const runBlobCommand = (store: EventStore, blobId: string, command: Command, loaded: Loaded<BlobState>) =>
  handleCommand(store, blob, blobStream(blobId), command, { commandId: randomUUID(), metadata: SERVICE, loaded });

/** The blob's data key: the one issued already, or a new one (instances racing share the winner's). */
export const contentKeyOf = async (dataKeys: DataKeys, blobId: string): Promise<StreamDataKey> => {
  const owner = blobKeyOwner(blobId);
  const issued = await dataKeys.issue(owner);
  if (!isLeft(issued)) return issued.right;
  const found = await dataKeys.find(owner);
  if (!found) throw new Error('a blob data key neither issued nor found (destroyed)');
  return found;
};

/** The stream of the resource a blob of `purpose` makes. */
export const resourceStreamOf = (purpose: BlobPurpose, resourceId: string): string => {
  switch (purpose) {
    case 'file':
      return fileStream(resourceId);
    case 'credential':
      return credentialStream(resourceId);
    case 'presentation':
      return presentationResourceStream(resourceId);
  }
};

/** The blob a credential, file or presentation was made from: `blobId` of the first event of its stream. */
export const blobOfResource = async (store: EventStore, purpose: BlobPurpose, resourceId: string): Promise<string | undefined> => {
  const read = await store.readStream(resourceStreamOf(purpose, resourceId), { maxCount: 1 });
  const first = read._tag === 'Found' ? read.events[0] : undefined;
  if (!first) return undefined;
  switch (purpose) {
    case 'file': {
      const event = decodeRecorded(FileEvent, first);
      return event.type === 'FileCreated' ? event.data.blobId : undefined;
    }
    case 'credential': {
      const event = decodeRecorded(CredentialEvent, first);
      return event.type === 'CredentialImported' ? event.data.blobId : undefined;
    }
    case 'presentation': {
      const event = decodeRecorded(PresentationResourceEvent, first);
      return event.type === 'PresentationCreated' ? event.data.blobId : undefined;
    }
  }
};

/**
 * The blob's plaintext, opened on the way out (an error mid-stream if the file was altered);
 * Gone once it was discarded or its key destroyed.
 */
export const openBlob = async (deps: BlobContentDeps, blobId: string): Promise<Either<'Gone', Readable>> => {
  const { state } = await loadBlob(deps.store, blobId);
  const file = contentFileOf(state);
  if (file === undefined) {
    if (state.status === 'uploaded' || state.status === 'used') throw new Error('a clear blob not sealed at start');
    return left('Gone');
  }
  const key = await deps.dataKeys.find(blobKeyOwner(blobId));
  if (!key) return left('Gone');
  return right(pipeline(deps.blobs.read(file), key.openStream(CONTENT_PURPOSE), () => undefined));
};

/**
 * Discards the blob's content for `reason` if the blob stream allows it at `at` (streams/blob.ts):
 * records BlobDiscarded, destroys the key, removes the file. Whether it did.
 */
export const discardBlob = async (deps: BlobContentDeps, blobId: string, reason: DiscardReason, at: Date, resource?: ResourceOfBlob): Promise<boolean> => {
  const loaded = await loadBlob(deps.store, blobId);
  const file = contentFileOf(loaded.state);
  const discarded = await runBlobCommand(deps.store, blobId, { type: 'DiscardBlob', data: { blobId, reason, at: at.toISOString(), resource } }, loaded);
  // Not (yet) discardable, or someone appended since: a later run decides on what is there then.
  if (isLeft(discarded)) return false;
  await removeContent(deps, blobId, file);
  return true;
};

/** Destroys the blob's key, then removes its file: what follows BlobDiscarded (again, after a crash). */
export const removeContent = async (deps: BlobContentDeps, blobId: string, file: string | undefined): Promise<void> => {
  await deps.dataKeys.destroy(blobKeyOwner(blobId));
  if (file !== undefined) await deps.blobs.remove(file);
};

/** Why a deleted credential, file or presentation may no longer be restored at `at`, if it may not (a 409 of this detail). */
export const restoreRefusal = (envelope: Envelope, at: string, restoreWindowSeconds: number): string | undefined =>
  envelope.deletedAt !== null && !restorable(envelope.deletedAt, at, restoreWindowSeconds)
    ? `The restore window (${restoreWindowSeconds} s after deletion) has passed: the content is erased and the resource can no longer be restored.`
    : undefined;

/** A kind's lifecycle (src/resources/kind.ts) that only refuses a restore past the restore window. */
export const restoreWithinWindow =
  (restoreWindowSeconds: number): NonNullable<VersionedKind<never, never>['lifecycle']> =>
  async (op, envelope, at) => {
    const refusal = op === 'restore' ? restoreRefusal(envelope, at, restoreWindowSeconds) : undefined;
    return refusal === undefined ? right({ appended: async () => undefined, notAppended: async () => undefined }) : left(refusal);
  };

/** The 410 of content that is no longer served: its resource deleted, or its content erased. */
export const contentGone = (erased: boolean): HttpError =>
  new HttpError(
    problem(
      410,
      '/problems/content-gone',
      'Content gone',
      erased ? 'The content was erased (deleted past the restore window, or the tenant\'s data erased).' : 'The resource is deleted: restore it to read its content.',
    ),
  );

/** The 410 of a deleted resource's content: restorable while its blob has content, erased once shredded. */
export const deletedContentGone = async (deps: BlobContentDeps, purpose: BlobPurpose, envelope: Envelope): Promise<HttpError> => {
  const blobId = await blobOfResource(deps.store, purpose, envelope.id);
  return contentGone(blobId === undefined || contentFileOf((await loadBlob(deps.store, blobId)).state) === undefined);
};

/** The plaintext of a credential's, file's or presentation's content while the resource is live; 410 otherwise. */
export const contentOfResource = async (deps: BlobContentDeps, purpose: BlobPurpose, envelope: Envelope): Promise<Readable> => {
  if (envelope.deletedAt !== null) throw await deletedContentGone(deps, purpose, envelope);
  const blobId = await blobOfResource(deps.store, purpose, envelope.id);
  if (blobId === undefined) throw new Error(`${purpose} ${envelope.id} names no blob`);
  const opened = await openBlob(deps, blobId);
  if (isLeft(opened)) throw contentGone(true);
  return opened.right;
};
