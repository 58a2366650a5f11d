// The embedded blob store: a directory under DATA_DIR where each blob is a file named by its
// `digest_multibase`, so the same bytes are stored once and a name always means the same bytes
// (public documents: trusted lists). Tenant content is sealed apart, below (sealedBlobStore).
// Bytes are streamed to a temporary file while hashed, synced, then renamed into place, so a
// crash never leaves a half-written blob under a digest name.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export const base58btc = (bytes: Uint8Array): string => {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i]! << 8;
      digits[i] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  return '1'.repeat(zeros) + digits.reverse().map((d) => BASE58_ALPHABET[d]).join('');
};

/** Multibase (`z`, base58btc) of the multihash (sha2-256: code 0x12, length 0x20) of a SHA-256 digest. */
export const digestMultibaseOf = (sha256: Buffer): string => `z${base58btc(Buffer.concat([Buffer.from([0x12, 0x20]), sha256]))}`;

const DIGEST_NAME = /^z[1-9A-HJ-NP-Za-km-z]{40,60}$/;

export class BlobTooLarge extends Error {
  override readonly name = 'BlobTooLarge';
}

export interface StoredBlob {
  readonly digestMultibase: string;
  readonly size: number;
}

export interface BlobStore {
  /** Stores everything `source` yields; rejects with BlobTooLarge past `maxBytes`, storing nothing. */
  put(source: Readable, maxBytes: number): Promise<StoredBlob>;
  read(digestMultibase: string): ReadStream;
}

/** BLOB_DIR, else DATA_DIR/blobs: one directory for every writer of one deployment. */
export const blobDirectory = (location: { readonly blobDir?: string | undefined; readonly dataDir: string }): string => location.blobDir ?? join(location.dataDir, 'blobs');

/** Counts and hashes what passes; fails with BlobTooLarge past `maxBytes`. */
const measuring = (maxBytes: number) => {
  const hash = createHash('sha256');
  let size = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new BlobTooLarge(`more than ${maxBytes} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { transform, stored: (): StoredBlob => ({ digestMultibase: digestMultibaseOf(hash.digest()), size }) };
};

/**
 * Writes what `streams` yield to a new private file in `dir`, synced, then renamed to the name
 * `nameOf` gives once everything is written; nothing is left behind on failure.
 */
const writeFile = async (dir: string, streams: readonly (Readable | Transform)[], nameOf: () => string): Promise<void> => {
  const temporary = join(dir, `${TEMPORARY_PREFIX}${randomUUID()}`);
  try {
    await pipeline([...streams, createWriteStream(temporary, { flags: 'wx', mode: 0o600 })]);
    const handle = await open(temporary, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, join(dir, nameOf()));
  } catch (err) {
    await unlink(temporary).catch(() => undefined);
    throw err;
  }
};

/** Files being written carry this prefix until renamed. */
export const TEMPORARY_PREFIX = '.upload-';

export const directoryBlobStore = async (dir: string): Promise<BlobStore> => {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return {
    async put(source, maxBytes) {
      const measure = measuring(maxBytes);
      let stored: StoredBlob | undefined;
      await writeFile(dir, [source, measure.transform], () => (stored = measure.stored()).digestMultibase);
      return stored!;
    },
    read(digestMultibase) {
      if (!DIGEST_NAME.test(digestMultibase)) throw new Error('not a digest_multibase');
      return createReadStream(join(dir, digestMultibase));
    },
  };
};

/** A clear blob of an earlier version, stored under its digest; undefined if there is none. */
export const clearBlobPath = (dir: string, digestMultibase: string): string | undefined => (DIGEST_NAME.test(digestMultibase) ? join(dir, digestMultibase) : undefined);

// Tenant content (credentials and files) is not stored by digest but sealed, each upload in a file
// of its own in the `sealed` subdirectory: `<blob id>.<random>`, the name its BlobUploaded (or
// BlobSealed) event records. Two uploads to one URL at once write two files; the one recorded
// names its file, the other is unreferenced and swept (src/resources/blobSweeper.ts).
const SEALED_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A file in the sealed blob directory: a sealed blob's (`blobId` set) or a write cut short. */
export interface SealedFileEntry {
  readonly name: string;
  readonly blobId: string | undefined;
  readonly modifiedAt: Date;
}

export interface SealedBlobStore {
  /**
   * Seals everything `source` yields through `seal` into a new file of the blob; the plaintext's
   * digest and size, and the file's name. Rejects with BlobTooLarge past `maxBytes`, storing nothing.
   */
  put(blobId: string, source: Readable, maxBytes: number, seal: Transform): Promise<StoredBlob & { readonly sealedFile: string }>;
  /** The sealed bytes of a file `put` named. */
  read(sealedFile: string): ReadStream;
  /** Removes the file; false if it was not there. */
  remove(sealedFile: string): Promise<boolean>;
  /** Every file of the directory, sorted by name. */
  list(): Promise<SealedFileEntry[]>;
}

export const sealedBlobStore = async (blobDir: string): Promise<SealedBlobStore> => {
  const dir = join(blobDir, 'sealed');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const pathOf = (name: string): string => {
    if (!SEALED_NAME.test(name) && !name.startsWith(TEMPORARY_PREFIX)) throw new Error('not a sealed blob file');
    return join(dir, name);
  };
  return {
    async put(blobId, source, maxBytes, seal) {
      const measure = measuring(maxBytes);
      const sealedFile = `${blobId}.${randomUUID()}`;
      if (!SEALED_NAME.test(sealedFile)) throw new Error('a blob id is a UUID');
      await writeFile(dir, [source, measure.transform, seal], () => sealedFile);
      return { ...measure.stored(), sealedFile };
    },
    read: (sealedFile) => createReadStream(pathOf(sealedFile)),
    async remove(sealedFile) {
      try {
        await unlink(pathOf(sealedFile));
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
    async list() {
      const names = (await readdir(dir)).sort();
      const entries: SealedFileEntry[] = [];
      for (const name of names) {
        const modified = await stat(join(dir, name)).then((info) => info.mtime, () => undefined);
        if (modified) entries.push({ name, blobId: SEALED_NAME.exec(name)?.[1], modifiedAt: modified });
      }
      return entries;
    },
  };
};
