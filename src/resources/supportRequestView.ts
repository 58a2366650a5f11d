// A support request as the tenant (GET /support-requests) and the operator (ops support show)
// read it: its state, the operator's note, every transition, what the export or erasure did, and
// the message opened with the request's data key (null once that key is gone).
import type { SupportRequestRow } from '../../projections/supportRequests.js';
import { MESSAGE, SealedMessage, supportRequestKeyOwner } from '../../streams/supportRequest.js';
import { openFor, type DataKeys } from '../crypto/dataKeys.js';
import type { Json } from '../eventstore/port.js';

export interface SupportRequestView {
  readonly id: string;
  readonly type: SupportRequestRow['type'];
  readonly status: SupportRequestRow['status'];
  /** Null once the request's data key is gone. */
  readonly message: Json | null;
  readonly note: string | null;
  readonly created_at: string;
  readonly modified_at: string;
  readonly transitions: readonly { readonly status: string; readonly at: string; readonly note: string | null }[];
  readonly export: { readonly available: boolean; readonly expires_at: string | null; readonly files: number; readonly bytes: number; readonly manifest_sha256: string } | null;
  readonly erasure: { readonly resources: number; readonly data_keys: number; readonly blobs: number; readonly api_keys: number } | null;
}

export const supportRequestView = async (dataKeys: Pick<DataKeys, 'find'>, row: SupportRequestRow): Promise<SupportRequestView> => {
  const key = await dataKeys.find(supportRequestKeyOwner(row.requestId));
  const message = key && SealedMessage.is(row.message) ? openFor(key, MESSAGE, row.message) : null;
  return {
    id: row.requestId,
    type: row.type,
    status: row.status,
    message,
    note: row.note,
    created_at: row.createdAt,
    modified_at: row.modifiedAt,
    transitions: row.transitions.map((t) => ({ status: t.status, at: t.at, note: t.note })),
    export: row.export && {
      available: row.exportAvailable,
      expires_at: row.exportExpiresAt,
      files: row.export.files,
      bytes: row.export.bytes,
      manifest_sha256: row.export.manifestDigest,
    },
    erasure: row.erased && { resources: row.erased.resources, data_keys: row.erased.dataKeys, blobs: row.erased.blobs, api_keys: row.erased.apiKeys },
  };
};
