// Trusted list versions on record: the signed document in the blob store (named by its digest)
// and its `trustList` stream, written through the category's decider. Reading one back checks
// the document against the digest on record.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { trustList, trustListStream, type TrustListError, type TrustListVersion } from '../../streams/trustList.js';
import { handleCommand, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import type { BlobStore } from '../blobStore.js';

export interface ListRecordDeps {
  readonly store: EventStore;
  readonly blobs: BlobStore;
}

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The stream key of a list: the source id, or for a list a LoTL points to, the source id and a digest of its URL. */
export const listKey = (sourceId: string, pointedUrl?: string): string =>
  pointedUrl === undefined ? sourceId : `${sourceId}.${sha256Hex(Buffer.from(pointedUrl, 'utf8')).slice(0, 16)}`;

/** The version on record for `key`, if any. */
export const recordedVersion = async (store: EventStore, key: string): Promise<TrustListVersion | undefined> => {
  const loaded = await loadStream(store, trustList, trustListStream(key));
  return isLeft(loaded) || loaded.right.state.status === 'none' ? undefined : loaded.right.state.version;
};

// Two instances refreshing together race for the same stream; the loser decides again on what
// the winner wrote (usually a confirmation of the same document).
const ATTEMPTS = 3;

/**
 * Records a fetched and verified document: a new version (the document stored first, so no
 * event ever names a missing blob), a confirmation of the recorded one, or the decider's refusal.
 */
export const recordFetchedVersion = async (
  deps: ListRecordDeps,
  key: string,
  version: Omit<TrustListVersion, 'blob' | 'size'>,
  document: Uint8Array,
  metadata: EventMetadata,
): Promise<Either<TrustListError, TrustListVersion>> => {
  const stream = trustListStream(key);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const loaded = await loadStream(deps.store, trustList, stream);
    if (isLeft(loaded)) throw new Error(`trust list stream ${stream} was deleted`);
    const current = loaded.right.state;
    const stored = current.status === 'recorded' && current.version.digest === version.digest
      ? { digestMultibase: current.version.blob, size: current.version.size }
      : await deps.blobs.put(Readable.from([Buffer.from(document)]), document.byteLength);
    const command = { type: 'RecordFetchedVersion', version: { ...version, blob: stored.digestMultibase, size: stored.size } } as const;
    // Named by what was fetched: recording the same fetch again appends nothing twice.
    const commandId = `${version.digest}@${version.fetchedAt}`;
    const result = await handleCommand(deps.store, trustList, stream, command, { commandId, metadata, loaded: loaded.right });
    if (isLeft(result)) {
      const failed = result.left;
      switch (failed.kind) {
        case 'domain':
          return left(failed.error);
        case 'store':
          if (failed.error._tag === 'WrongExpectedRevision') continue;
          throw new Error(`trust list stream ${stream} was deleted`);
      }
    }
    return right(command.version);
  }
  throw new Error(`trust list stream ${stream}: the record kept losing to concurrent writers`);
};

/** The recorded document, or why it cannot be had (missing, or not the bytes on record). */
export const readRecordedDocument = async (blobs: BlobStore, version: TrustListVersion): Promise<Either<string, Uint8Array>> => {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of blobs.read(version.blob)) chunks.push(chunk as Buffer);
  } catch {
    return left(`recorded document ${version.blob} is missing from the blob store`);
  }
  const document = Buffer.concat(chunks);
  return sha256Hex(document) === version.digest ? right(document) : left(`recorded document ${version.blob} does not match its recorded SHA-256`);
};
