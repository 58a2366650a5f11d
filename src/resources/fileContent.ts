// One live file per content (`digest_multibase`) in a tenant, decided by the event store: the
// `filecontent-` stream of (tenant, digest) says which file holds the content
// (streams/fileContent.ts), and every claim and release is appended at the revision it read.
//
// Order of writes: the claim first, then the file's own event (FileCreated, FileRestored); if
// that event is certainly not appended (the blob went to another create, a lost race), the claim
// is released again. Why release rather than "a claim whose file never appeared is free": a claim
// whose file is not there *yet* (its create is between the two appends) looks exactly like one
// whose file never will be, so a second create could take the content over and both files would
// go live. With explicit releases the claim stream alone says who holds the content. The cost is
// liveness, not safety: an instance that dies between the two appends (or between a delete and
// its release) leaves the content held by a file that is not live, and creates of that content
// are 409 until the claim is released (restoring that file and deleting it again does).
//
// Every release is appended at an exact revision, never "whatever is there now", so it can only
// give up the claim it means:
// - a restore appends a claim even when its file holds the content already, so a delete's release
//   (at the revision read before FileDeleted) fails once a restore of the file has claimed again;
// - an undone claim is released at the revision of that claim, and an undone restore only if the
//   file is not live (two restores of one file race: the loser's claim may be the current one).
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { fileContent, fileContentStream, type Command } from '../../streams/fileContent.js';
import { handleCommand, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';

/** A lost race reloads and decides again on what the winner wrote; this bounds it. */
const ATTEMPTS = 10;

/** The content is held by another file. */
export type Taken = 'Taken';

export interface Content {
  readonly tenantId: string;
  readonly digestMultibase: string;
  readonly fileId: string;
  readonly at: string;
}

const streamOf = (content: Content): string => fileContentStream(content.tenantId, content.digestMultibase);

/**
 * Claims the content for `content.fileId`; Taken when another file holds it. `again` (a restore)
 * also claims content the file holds already. Answers the revision of the claim.
 */
export const claimFileContent = async (store: EventStore, content: Content, metadata: EventMetadata, again = false): Promise<Either<Taken, number>> => {
  const command: Command = { type: 'ClaimContent', data: { fileId: content.fileId, again, at: content.at } };
  // A claim decided again on what a concurrent writer appended is still right: it retries.
  const claimed = await handleCommand(store, fileContent, streamOf(content), command, { commandId: randomUUID(), metadata, retries: ATTEMPTS - 1 });
  if (isLeft(claimed)) {
    const failed = claimed.left;
    switch (failed.kind) {
      case 'domain':
        if (failed.error._tag === 'Taken') return left('Taken');
        throw new Error(`file content stream: ${failed.error._tag}`);
      case 'store':
        throw new Error(failed.error._tag === 'WrongExpectedRevision' ? `file content stream still contended after ${ATTEMPTS} attempts` : `file content stream: ${failed.error._tag}`);
    }
  }
  return right(claimed.right.revision);
};

/** The revision at which `content.fileId` holds the content, if it does. */
export const heldAt = async (store: EventStore, content: Content): Promise<number | undefined> => {
  const loaded = await loadStream(store, fileContent, streamOf(content));
  if (isLeft(loaded)) throw new Error(`file content stream: ${loaded.left._tag}`);
  const { state, expectedRevision } = loaded.right;
  return state.status === 'held' && state.fileId === content.fileId && expectedRevision !== 'no_stream' ? Number(expectedRevision) : undefined;
};

/**
 * Releases the content if the stream is still at `revision` (where `content.fileId` held it).
 * Anything appended since (a claim of a restore) wins: then nothing is released.
 */
export const releaseFileContentAt = async (store: EventStore, content: Content, revision: number, metadata: EventMetadata): Promise<void> => {
  const command: Command = { type: 'ReleaseContent', data: { fileId: content.fileId, at: content.at } };
  // The file held the content at `revision` (its own claim, or heldAt): no read needed.
  const loaded = { state: { status: 'held', fileId: content.fileId } as const, expectedRevision: revision };
  const released = await handleCommand(store, fileContent, streamOf(content), command, { commandId: randomUUID(), metadata, loaded });
  if (!isLeft(released)) return;
  const failed = released.left;
  switch (failed.kind) {
    case 'domain':
      throw new Error(`file content stream: ${failed.error._tag}`);
    case 'store':
      // A lost race: a claim got in after `revision`, and the content stays held.
      if (failed.error._tag === 'WrongExpectedRevision') return;
      throw new Error(`file content stream: ${failed.error._tag}`);
  }
};
