// Authenticated encryption of a byte stream of any length in bounded memory: AES-256-GCM over
// chunks of 64 KiB, each with its own tag, in the STREAM construction (Hoang, Reyhanitabar,
// Rogaway, Vizár, "Online authenticated-encryption and its nonce-reuse misuse-resistance"): the
// IV of chunk i is a random 7-byte prefix, i (4 bytes, big-endian) and a last-chunk flag, so
// chunks cannot be reordered, dropped, repeated or cut off at a chunk boundary without the
// opening failing. The associated data binds the stream to where it belongs, as seal.ts does.
//
// Layout: MAGIC (4 bytes) | prefix (7 bytes) | chunk records, each ciphertext | tag (16 bytes);
// every record but the last holds CHUNK_BYTES of plaintext, the last (flagged) 0..CHUNK_BYTES.
// Plaintext leaves `openStream` only once its chunk's tag is verified.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform } from 'node:stream';

const MAGIC = Buffer.from('SBv1', 'latin1');
const PREFIX_BYTES = 7;
const HEADER_BYTES = MAGIC.length + PREFIX_BYTES;
const TAG_BYTES = 16;
export const CHUNK_BYTES = 64 * 1024;
const RECORD_BYTES = CHUNK_BYTES + TAG_BYTES;
const MAX_CHUNKS = 2 ** 32;

const ivOf = (prefix: Buffer, index: number, last: boolean): Buffer => {
  if (index >= MAX_CHUNKS) throw new Error('a sealed stream of more than 2^32 chunks');
  const iv = Buffer.alloc(12);
  prefix.copy(iv, 0);
  iv.writeUInt32BE(index, PREFIX_BYTES);
  iv[11] = last ? 1 : 0;
  return iv;
};

const sealChunk = (key: Buffer, aad: Buffer, iv: Buffer, plaintext: Buffer): Buffer => {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
};

const openChunk = (key: Buffer, aad: Buffer, iv: Buffer, record: Buffer): Buffer => {
  if (record.length < TAG_BYTES) throw new Error('sealed stream cut short');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(record.subarray(record.length - TAG_BYTES));
  return Buffer.concat([decipher.update(record.subarray(0, record.length - TAG_BYTES)), decipher.final()]);
};

/** Seals what is written to it with `key` (32 bytes) for `aad`. */
export const sealStream = (key: Buffer, aad: string): Transform => {
  const prefix = randomBytes(PREFIX_BYTES);
  const associated = Buffer.from(aad, 'utf8');
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = 0;
  return new Transform({
    construct(done) {
      this.push(Buffer.concat([MAGIC, prefix]));
      done();
    },
    transform(chunk: Buffer, _encoding, done) {
      try {
        pending.push(chunk);
        pendingBytes += chunk.length;
        // Strictly more than a chunk: the last record always holds what is left (possibly a whole chunk).
        if (pendingBytes > CHUNK_BYTES) {
          let buffered = Buffer.concat(pending);
          while (buffered.length > CHUNK_BYTES) {
            this.push(sealChunk(key, associated, ivOf(prefix, index++, false), buffered.subarray(0, CHUNK_BYTES)));
            buffered = buffered.subarray(CHUNK_BYTES);
          }
          pending = [buffered];
          pendingBytes = buffered.length;
        }
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        this.push(sealChunk(key, associated, ivOf(prefix, index, true), Buffer.concat(pending)));
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
};

/** Opens what `sealStream` sealed with the same key and associated data; errors on anything else. */
export const openStream = (key: Buffer, aad: string): Transform => {
  const associated = Buffer.from(aad, 'utf8');
  let prefix: Buffer | undefined;
  let buffered = Buffer.alloc(0);
  let index = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        buffered = Buffer.concat([buffered, chunk]);
        if (!prefix) {
          if (buffered.length < HEADER_BYTES) return done();
          if (!buffered.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a sealed stream');
          prefix = Buffer.from(buffered.subarray(MAGIC.length, HEADER_BYTES));
          buffered = buffered.subarray(HEADER_BYTES);
        }
        // More than a record: the first one is not the last.
        while (buffered.length > RECORD_BYTES) {
          this.push(openChunk(key, associated, ivOf(prefix, index++, false), buffered.subarray(0, RECORD_BYTES)));
          buffered = buffered.subarray(RECORD_BYTES);
        }
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        if (!prefix) throw new Error('sealed stream cut short');
        this.push(openChunk(key, associated, ivOf(prefix, index, true), buffered));
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
};
