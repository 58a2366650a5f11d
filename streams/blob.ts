// Stream category `blob`: one stream per requested upload, `blob-<blob id>`. The bytes are not
// here but in the blob store, named by their digest; the stream records who may upload, until
// when, what arrived, and which resource took it (a blob makes exactly one resource).
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec, type StreamContract } from './event.js';

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

export const blob: StreamContract<BlobState, BlobEvent> = {
  category,
  codec: BlobEvent,
  initialState: { status: 'none' },
  evolve: (state, event) => {
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
  },
};
