// Reading a tenant's support requests (the use cases, no HTTP): every one, one by id, and a
// DATA_DUMP's export archive while it is kept. Another tenant's request is not found.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { findSupportRequest, listSupportRequests } from '../../projections/supportRequests.js';
import { supportExportKeyOwner } from '../../streams/supportRequest.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import type { Sqlite } from '../sqlite/connection.js';
import type { ExportArchives } from './exportArchives.js';
import { supportRequestView, type SupportRequestView } from './supportRequestView.js';

export interface ReadSupportRequestsDeps {
  readonly db: Sqlite;
  readonly dataKeys: Pick<DataKeys, 'find'>;
}

export interface SupportExportDeps extends ReadSupportRequestsDeps {
  readonly archives: Pick<ExportArchives, 'read'>;
  readonly now: () => Date;
}

/**
 * Why a support request or its export cannot be read: no request of the tenant has the id (404),
 * the request has no export (404: not a DATA_DUMP, or not made yet), or its archive is gone (410).
 */
export type SupportRequestRefused = { readonly _tag: 'SupportRequestNotFound' } | { readonly _tag: 'NoExport' } | { readonly _tag: 'ExportGone' };

export const tenantSupportRequests = (deps: ReadSupportRequestsDeps, tenantId: string): Promise<SupportRequestView[]> =>
  Promise.all(listSupportRequests(deps.db, { tenantId }).map((row) => supportRequestView(deps.dataKeys, row)));

export const tenantSupportRequest = async (deps: ReadSupportRequestsDeps, tenantId: string, requestId: string): Promise<Either<SupportRequestRefused, SupportRequestView>> => {
  const row = findSupportRequest(deps.db, requestId, tenantId);
  return row ? right(await supportRequestView(deps.dataKeys, row)) : left({ _tag: 'SupportRequestNotFound' });
};

/** The request's export archive (a tar), opened with its key, while its retention lasts. */
export const supportRequestExport = async (deps: SupportExportDeps, tenantId: string, requestId: string): Promise<Either<SupportRequestRefused, Buffer>> => {
  const row = findSupportRequest(deps.db, requestId, tenantId);
  if (!row) return left({ _tag: 'SupportRequestNotFound' });
  if (row.export === null) return left({ _tag: 'NoExport' });
  const expired = !row.exportAvailable || row.exportExpiresAt === null || row.exportExpiresAt <= deps.now().toISOString();
  const key = expired ? undefined : await deps.dataKeys.find(supportExportKeyOwner(row.requestId));
  const archive = key && (await deps.archives.read(row.requestId, key));
  return archive ? right(archive) : left({ _tag: 'ExportGone' });
};
