// Stream category `filecontent`: one stream per (tenant, file content), which says which file
// currently holds that content. The spec allows one live file per content (`digest_multibase`) in
// a tenant; a create or restore claims the content here, appended at the revision it read, so of
// two writers racing for the same content exactly one wins (no check-then-write on a read model).
// Deleting the file releases it. The stream is named by a hash of tenant and digest,
// `filecontent-<hex sha256>`, so neither appears in a stream name. As a decider:
//
//   free --ClaimContent--> held --ReleaseContent (by the holder)--> free
//   held by the file --ClaimContent (again: a restore)--> held by it
//
// Pure: the file's id and the time come in the command.
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'filecontent';
export const fileContentStream = (tenantId: string, digestMultibase: string): string =>
  streamName(category, createHash('sha256').update(JSON.stringify([tenantId, digestMultibase]), 'utf8').digest('hex'));

/** The file `fileId` (stream `file-<fileId>`) takes the content: on create, or on restore. */
export const FileContentClaimed = eventCodec('FileContentClaimed', t.type({ fileId: t.string, claimedAt: t.string }));
/** The holder gives it up: it was deleted, or its create or restore did not happen. */
export const FileContentReleased = eventCodec('FileContentReleased', t.type({ fileId: t.string, releasedAt: t.string }));

/** Every event a filecontent stream can hold. */
export const FileContentEvent = t.union([FileContentClaimed, FileContentReleased]);
export type FileContentEvent = t.TypeOf<typeof FileContentEvent>;

export type FileContentState = { readonly status: 'free' } | { readonly status: 'held'; readonly fileId: string };

export type Command =
  /** `again` (a restore) also claims content the file holds already; see src/resources/fileContent.ts. */
  | { readonly type: 'ClaimContent'; readonly data: { readonly fileId: string; readonly again: boolean; readonly at: string } }
  | { readonly type: 'ReleaseContent'; readonly data: { readonly fileId: string; readonly at: string } };

export type DomainError =
  /** The content is held by another file (the spec's 409: one live file per content). */
  | { readonly _tag: 'Taken' }
  /** Only the holder releases. */
  | { readonly _tag: 'NotHolder'; readonly fileId: string };

export const initialState: FileContentState = { status: 'free' };

export const evolve = (state: FileContentState, event: FileContentEvent): FileContentState => {
  switch (event.type) {
    case 'FileContentClaimed':
      return { status: 'held', fileId: event.data.fileId };
    case 'FileContentReleased':
      // Only the holder releases; a release by anyone else changes nothing.
      return state.status === 'held' && state.fileId === event.data.fileId ? { status: 'free' } : state;
  }
};

export const decide = (command: Command, state: FileContentState): Either<DomainError, FileContentEvent[]> => {
  const { fileId, at } = command.data;
  switch (command.type) {
    case 'ClaimContent':
      if (state.status === 'held' && !(command.data.again && state.fileId === fileId)) return left({ _tag: 'Taken' });
      return right([{ type: 'FileContentClaimed', data: { fileId, claimedAt: at } }]);
    case 'ReleaseContent':
      if (state.status !== 'held' || state.fileId !== fileId) return left({ _tag: 'NotHolder', fileId });
      return right([{ type: 'FileContentReleased', data: { fileId, releasedAt: at } }]);
  }
};

export const fileContent: Decider<Command, FileContentState, FileContentEvent, DomainError> = { category, codec: FileContentEvent, initialState, evolve, decide };
