// The key-encryption key that wraps every data key. It must live outside the event store (a
// backup of the store alone must not reveal personal data): DATA_KEY_ENCRYPTION_KEY, or else a
// key file in DATA_DIR created on first start. Instances sharing one EventStoreDB need the same
// DATA_KEY_ENCRYPTION_KEY.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { KEY_BYTES } from './seal.js';

export const KEK_FILE = 'data-key-encryption.key';

export const loadKek = async (config: Pick<Config, 'dataDir' | 'dataKeyEncryptionKey'>): Promise<Buffer> => {
  if (config.dataKeyEncryptionKey) return Buffer.from(config.dataKeyEncryptionKey, 'base64url');
  await mkdir(config.dataDir, { recursive: true });
  const file = join(config.dataDir, KEK_FILE);
  try {
    // `wx`: of two processes starting at once, one creates the file and both read the same key.
    await writeFile(file, randomBytes(KEY_BYTES).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url');
  if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a 32-byte base64url key`);
  return key;
};
