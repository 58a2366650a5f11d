// The operator's work on support requests (ops support ...): each a command on the request's
// stream, decided by streams/supportRequest.ts. `export` builds and seals the tenant's archive
// before recording it; `erase` erases the tenant's data before recording what it did; both can
// run again after a crash (nothing is recorded until the work is done). Export archives expire:
// `expireExports` deletes each archive and destroys its key once SUPPORT_EXPORT_RETENTION_SECONDS
// have passed, and records it.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findExpiredExports } from '../../projections/supportRequests.js';
import { supportExportKeyOwner, supportRequest, supportRequestStream, type Command, type DomainError } from '../../streams/supportRequest.js';
import { handleCommand, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError } from '../eventstore/port.js';
import type { Sqlite } from '../sqlite/connection.js';
import type { BlobContentDeps } from './blobContent.js';
import type { ExportArchives } from './exportArchives.js';
import { eraseTenantData, type ErasureDeps } from './tenantErasure.js';
import { buildTenantExport } from './tenantExport.js';

/** The store, the data keys and the sealed blobs (BlobContentDeps), and what the work needs beside. */
export interface SupportWorkDeps extends BlobContentDeps {
  /** The key store's tenant keys: an erasure destroys them. */
  readonly tenantKeys: ErasureDeps['tenantKeys'];
  /** Read models caught up with the store: every projection. */
  readonly db: Sqlite;
  readonly archives: ExportArchives;
  readonly exportRetentionSeconds: number;
  readonly now: () => Date;
  readonly metadata: EventMetadata;
}

export type WorkError = DomainError | AppendError;

const record = async (deps: Pick<SupportWorkDeps, 'store' | 'metadata'>, command: Command): Promise<Either<WorkError, void>> => {
  const handled = await handleCommand(deps.store, supportRequest, supportRequestStream(command.data.requestId), command, { commandId: randomUUID(), metadata: deps.metadata });
  if (isLeft(handled)) {
    switch (handled.left.kind) {
      case 'domain':
      case 'store':
        return left(handled.left.error);
    }
  }
  return right(undefined);
};

/**
 * The tenant whose data the work is on, once the request's stream admits `command` (decided on
 * the stream as it is now, before any work); the command is decided again when recorded.
 */
const admitted = async (deps: Pick<SupportWorkDeps, 'store'>, command: Command): Promise<Either<WorkError, string>> => {
  const loaded = await loadStream(deps.store, supportRequest, supportRequestStream(command.data.requestId));
  if (isLeft(loaded)) throw new Error(`support request stream: ${loaded.left._tag}`);
  const state = loaded.right.state;
  const decided = supportRequest.decide(command, state);
  if (isLeft(decided)) return decided;
  return state.status === 'none' ? left({ _tag: 'SupportRequestNotFound', requestId: command.data.requestId }) : right(state.tenantId);
};

export const startRequest = (deps: SupportWorkDeps, requestId: string, note: string | null) =>
  record(deps, { type: 'StartSupportRequest', data: { requestId, note, at: deps.now().toISOString() } });

export const resolveRequest = (deps: SupportWorkDeps, requestId: string, note: string) =>
  record(deps, { type: 'ResolveSupportRequest', data: { requestId, note, at: deps.now().toISOString() } });

export const rejectRequest = (deps: SupportWorkDeps, requestId: string, note: string) =>
  record(deps, { type: 'RejectSupportRequest', data: { requestId, note, at: deps.now().toISOString() } });

/** Builds the tenant's archive, seals and stores it, then records it ready (DATA_DUMP only). */
export const exportRequest = async (deps: SupportWorkDeps, requestId: string, note: string | null): Promise<Either<WorkError, void>> => {
  const at = deps.now();
  const provisional = { files: 0, bytes: 0, manifestDigest: '' };
  const tenant = await admitted(deps, { type: 'RecordExport', data: { requestId, export: provisional, expiresAt: at.toISOString(), note, at: at.toISOString() } });
  if (isLeft(tenant)) return tenant;
  const built = await buildTenantExport(deps, tenant.right, { requestId, at: at.toISOString() });
  // A re-run after a crash finds the key issued by the first run.
  const issued = await deps.dataKeys.issue(supportExportKeyOwner(requestId));
  const key = isLeft(issued) ? await deps.dataKeys.find(supportExportKeyOwner(requestId)) : issued.right;
  if (!key) throw new Error('support export data key is gone');
  await deps.archives.write(requestId, built.archive, key);
  const expiresAt = new Date(at.getTime() + deps.exportRetentionSeconds * 1000).toISOString();
  const summary = { files: built.manifest.files.length + 1, bytes: built.archive.length, manifestDigest: built.manifestDigest };
  return record(deps, { type: 'RecordExport', data: { requestId, export: summary, expiresAt, note, at: at.toISOString() } });
};

/** Erases the tenant's data, then records what was done (DELETION only). */
export const eraseRequest = async (deps: SupportWorkDeps, requestId: string, note: string | null): Promise<Either<WorkError, void>> => {
  const nothing = { resources: 0, dataKeys: 0, blobs: 0, apiKeys: 0 };
  const tenant = await admitted(deps, { type: 'RecordErasure', data: { requestId, erased: nothing, note, at: deps.now().toISOString() } });
  if (isLeft(tenant)) return tenant;
  const erased = await eraseTenantData(deps, tenant.right);
  return record(deps, { type: 'RecordErasure', data: { requestId, erased, note, at: deps.now().toISOString() } });
};

const PAGE = 100;

/** Deletes every export archive past its expiry, destroys its key and records it. */
export const expireExports = async (deps: Pick<SupportWorkDeps, 'store' | 'dataKeys' | 'db' | 'archives' | 'now' | 'metadata'>): Promise<void> => {
  const now = deps.now().toISOString();
  // One page per run: the read model shows the expiries recorded only once it catches up.
  for (const requestId of findExpiredExports(deps.db, now, PAGE)) {
    await deps.archives.remove(requestId);
    await deps.dataKeys.destroy(supportExportKeyOwner(requestId));
    const recorded = await record(deps, { type: 'ExpireExport', data: { requestId, at: now } });
    // Another instance recorded it first: done.
    if (isLeft(recorded) && recorded.left._tag !== 'NoExport') throw new Error(`export expiry not recorded: ${recorded.left._tag}`);
  }
};
