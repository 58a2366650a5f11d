// Where a DATA_DUMP support request's export archive waits for the tenant to download it: one
// file per request in `exports/` under the blob store's directory (shared by the instances of a
// deployment, like the blobs), sealed with the request's export data key (owner
// `supportexport.<request id>`, wrapped by the KEK). Written to a temporary file, synced and renamed
// into place. Deleting the file and destroying the key at expiry leaves nothing to open.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as t from 'io-ts';
import { sealedFor, sealedPurpose } from '../../streams/dataKey.js';
import { openFor, sealFor, type DataKey } from '../crypto/dataKeys.js';

/** The archive, base64. */
const ARCHIVE = sealedPurpose('support-export', t.string);
const SealedArchive = sealedFor(ARCHIVE);
const REQUEST_ID = /^[0-9a-f-]{36}$/;

export const exportDirectory = (blobDir: string): string => join(blobDir, 'exports');

export interface ExportArchives {
  write(requestId: string, archive: Buffer, key: DataKey): Promise<void>;
  /** The archive opened, or undefined when there is none (never written, or deleted). */
  read(requestId: string, key: DataKey): Promise<Buffer | undefined>;
  remove(requestId: string): Promise<void>;
}

export const exportArchives = (dir: string): ExportArchives => {
  const pathOf = (requestId: string): string => {
    if (!REQUEST_ID.test(requestId)) throw new Error('not a support request id');
    return join(dir, `${requestId}.sealed`);
  };
  return {
    async write(requestId, archive, key) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const temporary = join(dir, `.export-${randomUUID()}`);
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify(sealFor(key, ARCHIVE, archive.toString('base64'))));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, pathOf(requestId));
    },
    async read(requestId, key) {
      const text = await readFile(pathOf(requestId), 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (text === undefined) return undefined;
      const sealed: unknown = JSON.parse(text);
      if (!SealedArchive.is(sealed)) throw new Error('an export archive that is not sealed');
      return Buffer.from(openFor(key, ARCHIVE, sealed), 'base64');
    },
    async remove(requestId) {
      await unlink(pathOf(requestId)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
};
