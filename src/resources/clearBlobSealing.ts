// Start-time sealing of the clear blobs earlier versions stored: they kept every upload in the
// clear in the blob directory, named by its digest. Once, at the first start of this version,
// every blob stream whose upload has no sealed file gets one (sealed with a data key issued for
// the blob, recorded as BlobSealed), then the clear files it came from are removed, unless a
// trusted list version names the same digest (those documents are public and stay). A marker file
// in the sealed directory says it is done. Cut short, it runs again at the next start and goes on
// where it stopped: sealed blobs are skipped, and so are clear files already removed.
import { createReadStream } from 'node:fs';
import { access, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { contentFileOf, CONTENT_PURPOSE } from '../../streams/blob.js';
import { clearBlobPath } from '../blobStore.js';
import { comparePositions, type Position } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { isRecord } from '../../streams/kernel.js';
import { contentKeyOf, loadBlob, runBlobCommand, type BlobContentDeps } from './blobContent.js';

const PAGE = 1000;
const MARKER = join('sealed', '.clear-blobs-sealed');

export interface ClearBlobCounts {
  readonly sealed: number;
  /** Uploads whose clear file was not there (removed by hand, or a different BLOB_DIR). */
  readonly missing: number;
  /** Clear files removed. */
  readonly removed: number;
}

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

/** The blobs uploaded without a sealed file, and the digests trusted lists name: one pass over the store. */
const clearUploads = async (deps: Pick<BlobContentDeps, 'store'>): Promise<{ blobIds: Set<string>; trustListDigests: Set<string> }> => {
  const blobIds = new Set<string>();
  const trustListDigests = new Set<string>();
  let from: Position | undefined;
  for (;;) {
    const page = await deps.store.readAll({ ...(from ? { fromPosition: from } : {}), maxCount: PAGE });
    const fresh = from ? page.filter((e) => comparePositions(e.position, from!) > 0) : page;
    for (const event of fresh) {
      const data = isRecord(event.data) ? event.data : {};
      if (event.type === 'BlobUploaded' && typeof data['blobId'] === 'string' && data['sealedFile'] === undefined) blobIds.add(data['blobId']);
      if (event.type === 'TrustListVersionAccepted' && typeof data['blob'] === 'string') trustListDigests.add(data['blob']);
    }
    if (page.length < PAGE || fresh.length === 0) return { blobIds, trustListDigests };
    from = page[page.length - 1]!.position;
  }
};

/** Seals the clear blobs of earlier versions (see above); the counts, also logged. */
export const sealClearBlobs = async (deps: BlobContentDeps & { readonly blobDir: string; readonly log: Logger; readonly now: () => Date }): Promise<ClearBlobCounts | undefined> => {
  const marker = join(deps.blobDir, MARKER);
  if (await exists(marker)) return undefined;
  const { blobIds, trustListDigests } = await clearUploads(deps);
  let sealed = 0;
  let missing = 0;
  const sealedDigests = new Set<string>();
  for (const blobId of blobIds) {
    const loaded = await loadBlob(deps.store, blobId);
    const { state } = loaded;
    if ((state.status !== 'uploaded' && state.status !== 'used') || contentFileOf(state) !== undefined) continue;
    const clear = clearBlobPath(deps.blobDir, state.digestMultibase);
    if (clear === undefined || !(await exists(clear))) {
      missing++;
      continue;
    }
    const key = await contentKeyOf(deps.dataKeys, blobId);
    const stored = await deps.blobs.put(blobId, createReadStream(clear), Number.MAX_SAFE_INTEGER, key.sealStream(CONTENT_PURPOSE));
    if (stored.digestMultibase !== state.digestMultibase) {
      await deps.blobs.remove(stored.sealedFile);
      deps.log.error('a clear blob does not match its recorded digest: left as it is', { blobId });
      missing++;
      continue;
    }
    const recorded = await runBlobCommand(deps.store, blobId, { type: 'SealBlob', data: { blobId, sealedFile: stored.sealedFile, at: deps.now().toISOString() } }, loaded);
    // Another instance sealed it first: its file is the one recorded.
    if (isLeft(recorded)) await deps.blobs.remove(stored.sealedFile);
    else sealed++;
    sealedDigests.add(state.digestMultibase);
  }
  let removed = 0;
  for (const digest of sealedDigests) {
    if (trustListDigests.has(digest)) continue;
    const clear = clearBlobPath(deps.blobDir, digest);
    if (clear === undefined) continue;
    await unlink(clear).then(() => removed++, (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  await writeFile(marker, `${deps.now().toISOString()}\n`, { mode: 0o600 });
  const counts = { sealed, missing, removed };
  deps.log.info('clear blobs of earlier versions sealed', counts);
  return counts;
};
