// The blob sweeper, a periodic job of the resources feature: it walks the sealed blob directory a
// bounded number of files per run (the next run goes on after the last name it saw, and starts
// over at the end) and removes
//   - shredded content: the credential, file or presentation that took the blob is deleted and
//     past the restore window (RESTORE_WINDOW_SECONDS);
//   - expired uploads: uploaded and never used within 24 hours;
//   - files whose blob was discarded already (a run cut short between the key and the file);
//   - unreferenced files: of a blob whose stream names another file or none (the loser of two
//     uploads to one URL, a write cut short), once older than an hour, so an upload between
//     writing its file and recording it is never taken for one.
// Every decision is the blob stream's (streams/blob.ts) at the revision read, so instances
// sweeping the same directory discard each blob once; every step can be run again. What it
// removes is counted in connector_blob_files_removed_total by reason.
import { isLeft } from 'fp-ts/lib/Either.js';
import { contentFileOf, type BlobPurpose } from '../../streams/blob.js';
import { credential, credentialStream } from '../../streams/credential.js';
import { file, fileStream } from '../../streams/file.js';
import { presentationResourceStream, verifiablePresentation } from '../../streams/verifiablePresentation.js';
import { TEMPORARY_PREFIX, type SealedFileEntry } from '../blobStore.js';
import { loadStream } from '../eventstore/handle.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import { startPeriodic, type Periodic } from '../periodic.js';
import { discardBlob, loadBlob, removeContent, type BlobContentDeps } from './blobContent.js';

/** Files looked at per run. */
export const SWEEP_BATCH = 200;
/** How old a file no blob stream names must be before it is removed. */
export const UNREFERENCED_GRACE_MS = 60 * 60 * 1000;

export interface SweepDeps extends BlobContentDeps {
  readonly metrics: Pick<Metrics, 'blobs'>;
  readonly restoreWindowSeconds: number;
  readonly now: () => Date;
}

export type RemovalReason = 'shredded' | 'expired' | 'erased' | 'unreferenced';

const loadResource = (deps: SweepDeps, purpose: BlobPurpose, resourceId: string) => {
  switch (purpose) {
    case 'file':
      return loadStream(deps.store, file, fileStream(resourceId));
    case 'credential':
      return loadStream(deps.store, credential, credentialStream(resourceId));
    case 'presentation':
      return loadStream(deps.store, verifiablePresentation, presentationResourceStream(resourceId));
  }
};

/** When the resource that took a blob was deleted (null: live); undefined if it cannot be found. */
const deletedAtOf = async (deps: SweepDeps, purpose: BlobPurpose, resourceId: string): Promise<string | null | undefined> => {
  const loaded = await loadResource(deps, purpose, resourceId);
  if (isLeft(loaded) || loaded.right.state.status === 'none') return undefined;
  return loaded.right.state.resource.deletedAt;
};

/** What one file of the sealed directory comes to: removed (why), or kept. */
const sweepFile = async (deps: SweepDeps, entry: SealedFileEntry, now: Date): Promise<RemovalReason | undefined> => {
  const old = now.getTime() - entry.modifiedAt.getTime() >= UNREFERENCED_GRACE_MS;
  const unreferenced = async (): Promise<RemovalReason | undefined> => (old && (await deps.blobs.remove(entry.name)) ? 'unreferenced' : undefined);
  if (entry.blobId === undefined) return entry.name.startsWith(TEMPORARY_PREFIX) ? unreferenced() : undefined;
  const blobId = entry.blobId;
  const { state } = await loadBlob(deps.store, blobId);
  if (state.status === 'discarded') {
    await removeContent(deps, blobId, entry.name);
    return state.reason;
  }
  if (contentFileOf(state) !== entry.name) return unreferenced();
  if (state.status === 'uploaded') return (await discardBlob(deps, blobId, 'expired', now)) ? 'expired' : undefined;
  if (state.status !== 'used') return undefined;
  const deletedAt = await deletedAtOf(deps, state.purpose, state.resourceId);
  if (deletedAt === undefined || deletedAt === null) return undefined;
  return (await discardBlob(deps, blobId, 'shredded', now, { deletedAt, restoreWindowSeconds: deps.restoreWindowSeconds })) ? 'shredded' : undefined;
};

/** One run over at most `batch` files after `after`; the name to go on after (undefined: start over). */
export const sweepBlobs = async (deps: SweepDeps, after: string | undefined, batch = SWEEP_BATCH): Promise<{ readonly next: string | undefined; readonly removed: number }> => {
  const now = deps.now();
  const entries = (await deps.blobs.list()).filter((entry) => after === undefined || entry.name > after).slice(0, batch);
  let removed = 0;
  for (const entry of entries) {
    const reason = await sweepFile(deps, entry, now);
    if (reason === undefined) continue;
    removed++;
    deps.metrics.blobs.removed.inc({ reason });
  }
  return { next: entries.length === batch ? entries[entries.length - 1]!.name : undefined, removed };
};

export const startBlobSweeper = (deps: SweepDeps, intervalMs: number, log: Logger): Periodic => {
  let after: string | undefined;
  return startPeriodic('blob sweeper', intervalMs, async () => {
    const run = await sweepBlobs(deps, after);
    after = run.next;
    if (run.removed > 0) log.info('blob files removed', { removed: run.removed });
  }, log);
};

/**
 * Erases the content of every credential, file and presentation of one tenant, uploads not yet
 * used included: each of its blobs is discarded (BlobDiscarded `erased`), its data key destroyed
 * and its sealed file removed. Nothing of another tenant is touched. The number of files removed; run again, it
 * finds nothing. For the DELETION support request, in the service or the ops tool (`blobs`:
 * sealedBlobStore(blobDirectory(config)); without `metrics` nothing is counted). The blobs'
 * streams keep their events, without content.
 */
export const eraseTenantBlobs = async (
  deps: BlobContentDeps & { readonly now: () => Date; readonly metrics?: Pick<Metrics, 'blobs'> | undefined },
  tenantId: string,
): Promise<number> => {
  const now = deps.now();
  let erased = 0;
  for (const entry of await deps.blobs.list()) {
    if (entry.blobId === undefined) continue;
    const { state } = await loadBlob(deps.store, entry.blobId);
    if (state.status === 'none' || state.tenantId !== tenantId) continue;
    // Discarded already (erased before, or shredded): its key and file go all the same.
    if (state.status !== 'discarded' && !(await discardBlob(deps, entry.blobId, 'erased', now))) throw new Error('a blob of the tenant could not be erased (a concurrent write): run the erasure again');
    await removeContent(deps, entry.blobId, entry.name);
    erased++;
    deps.metrics?.blobs.removed.inc({ reason: 'erased' });
  }
  return erased;
};
