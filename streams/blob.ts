// Stream category `blob`: one stream per requested upload, `blob-<blob id>`. The bytes are not
// here but in the blob store, named by their digest; the stream records who may upload, until
// when, what arrived, and which resource took it (a blob makes exactly one resource). As a decider:
//
//   none --RequestUpload--> requested --RecordUpload--> uploaded --UseBlob--> used
//
// Pure: the ids, the time and what the blob store stored come in the command.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'blob';
export const blobStream = (blobId: string): string => streamName(category, blobId);

/** Which create may take the blob: `POST /files?blob_id=` or `POST /credentials?blob_id=`. */
export const BlobPurpose = t.keyof({ file: null, credential: null }, 'BlobPurpose');
export type BlobPurpose = t.TypeOf<typeof BlobPurpose>;

export const BlobUploadRequested = eventCodec(
  'BlobUploadRequested',
  t.type({ blobId: t.string, tenantId: t.string, purpose: BlobPurpose, requestedAt: t.string, expiresAt: t.string }),
);
export const BlobUploaded = eventCodec(
  'BlobUploaded',
  t.type({ blobId: t.string, digestMultibase: t.string, size: t.number, contentType: t.string, uploadedAt: t.string }),
);
export const BlobUsed = eventCodec('BlobUsed', t.type({ blobId: t.string, resourceId: t.string, usedAt: t.string }));

/** Every event a blob stream can hold. */
export const BlobEvent = t.union([BlobUploadRequested, BlobUploaded, BlobUsed]);
export type BlobEvent = t.TypeOf<typeof BlobEvent>;

interface Requested {
  readonly blobId: string;
  readonly tenantId: string;
  readonly purpose: BlobPurpose;
  readonly expiresAt: string;
}
export interface UploadedBlob {
  readonly digestMultibase: string;
  readonly size: number;
  readonly contentType: string;
  readonly uploadedAt: string;
}

export type BlobState =
  | { readonly status: 'none' }
  | (Requested & { readonly status: 'requested' })
  | (Requested & UploadedBlob & { readonly status: 'uploaded' | 'used' });

/** How long an uploaded blob may wait for the create that takes it. */
export const UPLOADED_BLOB_LIFETIME_MS = 24 * 60 * 60 * 1000;

export type Command =
  | { readonly type: 'RequestUpload'; readonly data: Requested & { readonly at: string } }
  | { readonly type: 'RecordUpload'; readonly data: UploadedBlob & { readonly blobId: string; readonly tenantId: string } }
  | {
      readonly type: 'UseBlob';
      readonly data: { readonly blobId: string; readonly tenantId: string; readonly purpose: BlobPurpose; readonly resourceId: string; readonly at: string };
    };

export type DomainError =
  | { readonly _tag: 'BlobExists'; readonly blobId: string }
  /** Unknown or another tenant's; for UseBlob also not uploaded, used, for another kind or left too long. */
  | { readonly _tag: 'BlobNotFound'; readonly blobId: string }
  | { readonly _tag: 'BlobUploadedAlready'; readonly blobId: string };

export const initialState: BlobState = { status: 'none' };

export const evolve = (state: BlobState, event: BlobEvent): BlobState => {
  switch (event.type) {
    case 'BlobUploadRequested': {
      const { blobId, tenantId, purpose, expiresAt } = event.data;
      return { status: 'requested', blobId, tenantId, purpose, expiresAt };
    }
    case 'BlobUploaded': {
      if (state.status !== 'requested') return state;
      const { digestMultibase, size, contentType, uploadedAt } = event.data;
      return { ...state, status: 'uploaded', digestMultibase, size, contentType, uploadedAt };
    }
    case 'BlobUsed':
      return state.status === 'uploaded' ? { ...state, status: 'used' } : state;
  }
};

/** Whether the tenant may upload the blob's bytes now: checked before they are stored, and again by RecordUpload. */
export const uploadable = (state: BlobState, blobId: string, tenantId: string): Either<DomainError, void> => {
  if (state.status === 'none' || state.tenantId !== tenantId) return left({ _tag: 'BlobNotFound', blobId });
  if (state.status !== 'requested') return left({ _tag: 'BlobUploadedAlready', blobId });
  return right(undefined);
};

/** The blob a create of `purpose` by the tenant may take at `at`; any other is not found. */
export const usable = (
  state: BlobState,
  { blobId, tenantId, purpose, at }: { readonly blobId: string; readonly tenantId: string; readonly purpose: BlobPurpose; readonly at: string },
): Either<DomainError, UploadedBlob> => {
  if (state.status !== 'uploaded' || state.tenantId !== tenantId || state.purpose !== purpose) return left({ _tag: 'BlobNotFound', blobId });
  if (Date.parse(state.uploadedAt) + UPLOADED_BLOB_LIFETIME_MS <= Date.parse(at)) return left({ _tag: 'BlobNotFound', blobId });
  return right(state);
};

export const decide = (command: Command, state: BlobState): Either<DomainError, BlobEvent[]> => {
  switch (command.type) {
    case 'RequestUpload': {
      const { at, ...requested } = command.data;
      if (state.status !== 'none') return left({ _tag: 'BlobExists', blobId: requested.blobId });
      return right([{ type: 'BlobUploadRequested', data: { ...requested, requestedAt: at } }]);
    }
    case 'RecordUpload': {
      const { tenantId, ...uploaded } = command.data;
      const refused = uploadable(state, uploaded.blobId, tenantId);
      return isLeft(refused) ? refused : right([{ type: 'BlobUploaded', data: uploaded }]);
    }
    case 'UseBlob': {
      const refused = usable(state, command.data);
      const { blobId, resourceId, at } = command.data;
      return isLeft(refused) ? refused : right([{ type: 'BlobUsed', data: { blobId, resourceId, usedAt: at } }]);
    }
  }
};

export const blob: Decider<Command, BlobState, BlobEvent, DomainError> = { category, codec: BlobEvent, initialState, evolve, decide };
