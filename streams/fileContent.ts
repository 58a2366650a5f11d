// Stream category `filecontent`: one stream per (tenant, file content), which says which file
// currently holds that content. The spec allows one live file per content (`digest_multibase`) in
// a tenant; a create or restore claims the content here, appended at the revision it read, so of
// two writers racing for the same content exactly one wins (no check-then-write on a read model).
// Deleting the file releases it. The stream is named by a hash of tenant and digest,
// `filecontent-<hex sha256>`, so neither appears in a stream name.
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec, type StreamContract } from './event.js';

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

export const fileContent: StreamContract<FileContentState, FileContentEvent> = {
  category,
  codec: FileContentEvent,
  initialState: { status: 'free' },
  evolve: (state, event) => {
    switch (event.type) {
      case 'FileContentClaimed':
        return { status: 'held', fileId: event.data.fileId };
      case 'FileContentReleased':
        // Only the holder releases; a release by anyone else changes nothing.
        return state.status === 'held' && state.fileId === event.data.fileId ? { status: 'free' } : state;
    }
  },
};
