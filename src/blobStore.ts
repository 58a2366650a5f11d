// The embedded blob store: a directory under DATA_DIR where each blob is a file named by its
// `digest_multibase`, so the same bytes are stored once and a name always means the same bytes.
// Bytes are streamed to a temporary file while hashed, synced, then renamed into place, so a
// crash never leaves a half-written blob under a digest name.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
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
  /** Removes the blob's file; true when there was one. */
  remove(digestMultibase: string): Promise<boolean>;
}

/** BLOB_DIR, else DATA_DIR/blobs: one directory for every writer of one deployment. */
export const blobDirectory = (location: { readonly blobDir?: string | undefined; readonly dataDir: string }): string => location.blobDir ?? join(location.dataDir, 'blobs');

export const directoryBlobStore = async (dir: string): Promise<BlobStore> => {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const pathOf = (digestMultibase: string): string => {
    if (!DIGEST_NAME.test(digestMultibase)) throw new Error('not a digest_multibase');
    return join(dir, digestMultibase);
  };
  return {
    async put(source, maxBytes) {
      const temporary = join(dir, `.upload-${randomUUID()}`);
      const hash = createHash('sha256');
      let size = 0;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > maxBytes) return done(new BlobTooLarge(`more than ${maxBytes} bytes`));
          hash.update(chunk);
          done(null, chunk);
        },
      });
      try {
        await pipeline(source, measure, createWriteStream(temporary, { flags: 'wx', mode: 0o600 }));
        const handle = await open(temporary, 'r+');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        const digestMultibase = digestMultibaseOf(hash.digest());
        await rename(temporary, join(dir, digestMultibase));
        return { digestMultibase, size };
      } catch (err) {
        await unlink(temporary).catch(() => undefined);
        throw err;
      }
    },
    read(digestMultibase) {
      return createReadStream(pathOf(digestMultibase));
    },
    async remove(digestMultibase) {
      return unlink(pathOf(digestMultibase)).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return false;
          throw err;
        },
      );
    },
  };
};
