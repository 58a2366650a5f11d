// Stream category `blob`: one stream per requested upload (or content the service makes: a
// presentation), `blob-<blob id>`. The bytes are not
// here but in the blob store, sealed with the blob's own data key (`datakey-blob.<blob id>`) in
// the file the upload names; the stream records who may upload, until when, what arrived (the
// plaintext's digest and size), which resource took it (a blob makes exactly one resource), and
// when its content was discarded (its key destroyed, its file removed). As a decider:
//
//   none --RequestUpload--> requested --RecordUpload--> uploaded --UseBlob--> used
//   none --RecordMadeBlob--> used                       (the three events at once)
//   uploaded, used --SealBlob--> the same, sealed       (a clear blob of earlier versions)
//   uploaded (left too long), used (its resource past the restore window), any (the tenant
//   erased) --DiscardBlob--> discarded
//
// Pure: the ids, the time and what the blob store stored come in the command.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';
import { restorable } from './resource.js';

export const category = 'blob';
export const blobStream = (blobId: string): string => streamName(category, blobId);
/** The owner of the blob's data key (src/crypto/dataKeys.ts), and what its content is sealed for. */
export const blobKeyOwner = (blobId: string): string => `blob.${blobId}`;
export const CONTENT_PURPOSE = 'content';

/**
 * Which create may take the blob: `POST /files?blob_id=` or `POST /credentials?blob_id=`; or, for
 * `presentation`, the presentation `POST /presentations` made (never uploaded).
 */
export const BlobPurpose = t.keyof({ file: null, credential: null, presentation: null }, 'BlobPurpose');
export type BlobPurpose = t.TypeOf<typeof BlobPurpose>;

export const BlobUploadRequested = eventCodec(
  'BlobUploadRequested',
  t.type({ blobId: t.string, tenantId: t.string, purpose: BlobPurpose, requestedAt: t.string, expiresAt: t.string }),
);
export const BlobUploaded = eventCodec(
  'BlobUploaded',
  t.intersection([
    t.type({ blobId: t.string, digestMultibase: t.string, size: t.number, contentType: t.string, uploadedAt: t.string }),
    /** The blob store's file holding the sealed bytes; absent in earlier versions, which stored them clear under the digest. */
    t.partial({ sealedFile: t.string }),
  ]),
);
export const BlobUsed = eventCodec('BlobUsed', t.type({ blobId: t.string, resourceId: t.string, usedAt: t.string }));
/** A clear blob of an earlier version, sealed at start: its sealed file from now on. */
export const BlobSealed = eventCodec('BlobSealed', t.type({ blobId: t.string, sealedFile: t.string, sealedAt: t.string }));

/**
 * Why a blob's content was discarded: `expired`, uploaded and never used in time; `shredded`, its
 * resource deleted and past the restore window; `erased`, its tenant's data erased.
 */
export const DiscardReason = t.keyof({ expired: null, shredded: null, erased: null }, 'DiscardReason');
export type DiscardReason = t.TypeOf<typeof DiscardReason>;
export const BlobDiscarded = eventCodec('BlobDiscarded', t.type({ blobId: t.string, reason: DiscardReason, discardedAt: t.string }));

/** Every event a blob stream can hold. */
export const BlobEvent = t.union([BlobUploadRequested, BlobUploaded, BlobUsed, BlobSealed, BlobDiscarded]);
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
  /** Absent for a clear blob of an earlier version not sealed yet. */
  readonly sealedFile?: string | undefined;
}

export type BlobState =
  | { readonly status: 'none' }
  | (Requested & { readonly status: 'requested' })
  | (Requested & UploadedBlob & { readonly status: 'uploaded' })
  | (Requested & UploadedBlob & { readonly status: 'used'; readonly resourceId: string })
  | (Requested & Partial<UploadedBlob> & { readonly status: 'discarded'; readonly reason: DiscardReason; readonly resourceId?: string | undefined });

/** How long an uploaded blob may wait for the create that takes it. */
export const UPLOADED_BLOB_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** For `shredded`: the resource that took the blob, deleted when (null: live), and the restore window. */
export interface ResourceOfBlob {
  readonly deletedAt: string | null;
  readonly restoreWindowSeconds: number;
}

export type Command =
  | { readonly type: 'RequestUpload'; readonly data: Requested & { readonly at: string } }
  | { readonly type: 'RecordUpload'; readonly data: UploadedBlob & { readonly blobId: string; readonly tenantId: string } }
  | {
      readonly type: 'UseBlob';
      readonly data: { readonly blobId: string; readonly tenantId: string; readonly purpose: BlobPurpose; readonly resourceId: string; readonly at: string };
    }
  | {
      readonly type: 'RecordMadeBlob';
      readonly data: UploadedBlob & { readonly blobId: string; readonly tenantId: string; readonly purpose: BlobPurpose; readonly resourceId: string; readonly at: string };
    }
  | { readonly type: 'SealBlob'; readonly data: { readonly blobId: string; readonly sealedFile: string; readonly at: string } }
  | {
      readonly type: 'DiscardBlob';
      readonly data: { readonly blobId: string; readonly reason: DiscardReason; readonly at: string; readonly resource?: ResourceOfBlob | undefined };
    };

export type DomainError =
  | { readonly _tag: 'BlobExists'; readonly blobId: string }
  /** Unknown or another tenant's; for UseBlob also not uploaded, used, for another kind or left too long. */
  | { readonly _tag: 'BlobNotFound'; readonly blobId: string }
  | { readonly _tag: 'BlobUploadedAlready'; readonly blobId: string }
  /** SealBlob of a blob sealed already, or without bytes. */
  | { readonly _tag: 'NothingToSeal'; readonly blobId: string }
  /** DiscardBlob for a reason that does not hold (yet), or of a blob discarded already. */
  | { readonly _tag: 'NotDiscardable'; readonly blobId: string };

export const initialState: BlobState = { status: 'none' };

export const evolve = (state: BlobState, event: BlobEvent): BlobState => {
  switch (event.type) {
    case 'BlobUploadRequested': {
      const { blobId, tenantId, purpose, expiresAt } = event.data;
      return { status: 'requested', blobId, tenantId, purpose, expiresAt };
    }
    case 'BlobUploaded': {
      if (state.status !== 'requested') return state;
      const { digestMultibase, size, contentType, uploadedAt, sealedFile } = event.data;
      return { ...state, status: 'uploaded', digestMultibase, size, contentType, uploadedAt, sealedFile };
    }
    case 'BlobUsed':
      return state.status === 'uploaded' ? { ...state, status: 'used', resourceId: event.data.resourceId } : state;
    case 'BlobSealed':
      return state.status === 'uploaded' || state.status === 'used' ? { ...state, sealedFile: event.data.sealedFile } : state;
    case 'BlobDiscarded':
      return state.status === 'none' ? state : { ...state, status: 'discarded', reason: event.data.reason };
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

/** Whether the blob's content may be discarded at `at` for `reason` (see DiscardReason). */
export const discardable = (state: BlobState, reason: DiscardReason, at: string, resource?: ResourceOfBlob): boolean => {
  switch (reason) {
    case 'expired':
      return state.status === 'uploaded' && Date.parse(state.uploadedAt) + UPLOADED_BLOB_LIFETIME_MS <= Date.parse(at);
    case 'shredded':
      return state.status === 'used' && resource !== undefined && resource.deletedAt !== null && !restorable(resource.deletedAt, at, resource.restoreWindowSeconds);
    case 'erased':
      return state.status !== 'none' && state.status !== 'discarded';
  }
};

/** The sealed file holding the blob's content, while it has content. */
export const contentFileOf = (state: BlobState): string | undefined =>
  (state.status === 'uploaded' || state.status === 'used') && state.sealedFile !== undefined ? state.sealedFile : undefined;

export const decide = (command: Command, state: BlobState): Either<DomainError, BlobEvent[]> => {
  switch (command.type) {
    case 'RequestUpload': {
      const { at, ...requested } = command.data;
      if (state.status !== 'none') return left({ _tag: 'BlobExists', blobId: requested.blobId });
      return right([{ type: 'BlobUploadRequested', data: { ...requested, requestedAt: at } }]);
    }
    case 'RecordUpload': {
      const { tenantId, sealedFile, ...uploaded } = command.data;
      const refused = uploadable(state, uploaded.blobId, tenantId);
      return isLeft(refused) ? refused : right([{ type: 'BlobUploaded', data: { ...uploaded, ...(sealedFile === undefined ? {} : { sealedFile }) } }]);
    }
    case 'UseBlob': {
      const refused = usable(state, command.data);
      const { blobId, resourceId, at } = command.data;
      return isLeft(refused) ? refused : right([{ type: 'BlobUsed', data: { blobId, resourceId, usedAt: at } }]);
    }
    case 'RecordMadeBlob': {
      // Content the service made and sealed for a resource of its own making: requested, uploaded
      // and taken at once, so the sweeper and the erasure treat it like any used blob.
      const { blobId, tenantId, purpose, resourceId, at, digestMultibase, size, contentType, uploadedAt, sealedFile } = command.data;
      if (state.status !== 'none') return left({ _tag: 'BlobExists', blobId });
      return right([
        { type: 'BlobUploadRequested', data: { blobId, tenantId, purpose, requestedAt: at, expiresAt: at } },
        { type: 'BlobUploaded', data: { blobId, digestMultibase, size, contentType, uploadedAt, ...(sealedFile === undefined ? {} : { sealedFile }) } },
        { type: 'BlobUsed', data: { blobId, resourceId, usedAt: at } },
      ]);
    }
    case 'SealBlob': {
      const { blobId, sealedFile, at } = command.data;
      if ((state.status !== 'uploaded' && state.status !== 'used') || state.sealedFile !== undefined) return left({ _tag: 'NothingToSeal', blobId });
      return right([{ type: 'BlobSealed', data: { blobId, sealedFile, sealedAt: at } }]);
    }
    case 'DiscardBlob': {
      const { blobId, reason, at, resource } = command.data;
      if (!discardable(state, reason, at, resource)) return left({ _tag: 'NotDiscardable', blobId });
      return right([{ type: 'BlobDiscarded', data: { blobId, reason, discardedAt: at } }]);
    }
  }
};

export const blob: Decider<Command, BlobState, BlobEvent, DomainError> = { category, codec: BlobEvent, initialState, evolve, decide };
