// The key-encryption key (KEK): it wraps every data key, seals tenant callback secrets and derives
// tenant DID keys. It must live apart from the event store, so that a copy of DATA_DIR (or of the
// EventStoreDB) alone opens nothing. Where it comes from, the first that applies:
//   1. DATA_KEY_ENCRYPTION_KEY, the key itself (instances over one EventStoreDB share it);
//   2. DATA_KEY_ENCRYPTION_KEY_FILE;
//   3. DATA_DIR/data-key-encryption.key when that file exists: the default of earlier versions,
//      still used (everything sealed so far, and the tenants' DID keys, depend on it) with a warning;
//   4. data-key-encryption.key in the user's configuration directory:
//      $XDG_CONFIG_HOME/eudi-connector/, else ~/.config/eudi-connector/.
// A key file that does not exist is created: mode 0600, in a directory made 0700.
import { randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, realpath, stat, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Sealed } from '../../streams/dataKey.js';
import type { Logger } from '../log.js';
import { KEY_BYTES, open as openSealed, seal } from './seal.js';

/**
 * What wraps and unwraps the data keys: the key file's key in memory (fileKek), or the token's
 * AES-256 key, which never leaves it (src/crypto/pkcs11/kek.ts). Both seal with AES-256-GCM, the
 * associated data binding a wrapped key to its owner.
 */
export interface Kek {
  wrap(dataKey: Buffer, aad: string): Promise<Sealed>;
  /** Throws when `wrapped` was not wrapped by this KEK with this associated data. */
  unwrap(wrapped: Sealed, aad: string): Promise<Buffer>;
}

export const fileKek = (key: Buffer): Kek => {
  if (key.length !== KEY_BYTES) throw new Error('the key-encryption key must be 32 bytes');
  return {
    wrap: async (dataKey, aad) => seal(key, dataKey, aad),
    unwrap: async (wrapped, aad) => openSealed(key, wrapped, aad),
  };
};

export const KEK_FILE = 'data-key-encryption.key';
const CONFIG_DIR = 'eudi-connector';

/** The key file used when nothing says otherwise; `env` gives XDG_CONFIG_HOME and HOME. */
export const defaultKekFile = (env: NodeJS.ProcessEnv): string => {
  const configHome = env['XDG_CONFIG_HOME'];
  // The XDG base directory specification says to ignore a relative XDG_CONFIG_HOME.
  const base = configHome && isAbsolute(configHome) ? configHome : join(env['HOME'] || homedir(), '.config');
  return join(base, CONFIG_DIR, KEK_FILE);
};

const exists = (file: string): Promise<boolean> =>
  stat(file).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );

/** Resolves symbolic links where the path exists, so a link into DATA_DIR counts as inside. */
const real = (path: string): Promise<string> => realpath(path).catch(() => resolve(path));

const isInside = async (dir: string, file: string): Promise<boolean> => {
  const path = relative(await real(dir), join(await real(dirname(file)), basename(file)));
  return path !== '' && !path.startsWith('..') && !isAbsolute(path);
};

/** Flushes a file, or a directory's entries, to stable storage. */
const sync = async (path: string, flags: string): Promise<void> => {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * Publishes a new key under `file` unless one is there; true if it did. The key is written and
 * flushed to a private temporary file first and linked into place: of two processes starting at
 * once one creates it and both read the same complete key, and a power cut cannot leave a key
 * file that is empty or gone while data sealed under it is already stored.
 */
const createKeyFile = async (file: string): Promise<boolean> => {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `.${KEK_FILE}-${randomUUID()}`);
  await writeFile(temporary, randomBytes(KEY_BYTES).toString('base64url'), { flag: 'wx', mode: 0o600 });
  try {
    await sync(temporary, 'r+');
    await link(temporary, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    await unlink(temporary);
  }
  await sync(dir, 'r');
  return true;
};

const readKeyFile = async (file: string, log: Logger): Promise<Buffer> => {
  try {
    if (!(await exists(file)) && (await createKeyFile(file))) {
      log.info('key-encryption key file created: back it up, apart from DATA_DIR', { file });
    }
  } catch (err) {
    throw new Error(
      `cannot create the key-encryption key file ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}): set DATA_KEY_ENCRYPTION_KEY_FILE to a writable place, or DATA_KEY_ENCRYPTION_KEY`,
      { cause: err },
    );
  }
  if (((await stat(file)).mode & 0o077) !== 0) log.warn('the key-encryption key file is accessible to other users: make it mode 0600', { file });
  const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url');
  if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a 32-byte base64url key`);
  return key;
};

/** Where the key may come from (DATA_DIR, DATA_KEY_ENCRYPTION_KEY, DATA_KEY_ENCRYPTION_KEY_FILE). */
export interface KekSource {
  readonly dataDir: string;
  /** The key itself, base64url. */
  readonly dataKeyEncryptionKey?: string | undefined;
  readonly dataKeyEncryptionKeyFile?: string | undefined;
}

/** The key-encryption key (see the top of this file); warns when a key file sits in DATA_DIR. */
export const loadKek = async (
  source: KekSource,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Buffer> => {
  const legacy = join(source.dataDir, KEK_FILE);
  const legacyExists = await exists(legacy);
  const warnUnused = (): void =>
    log.warn('DATA_DIR holds a key-encryption key file that is not used: delete it, or move it out if data was sealed with it', { file: legacy });
  if (source.dataKeyEncryptionKey) {
    if (legacyExists) warnUnused();
    return Buffer.from(source.dataKeyEncryptionKey, 'base64url');
  }
  const file = source.dataKeyEncryptionKeyFile ?? (legacyExists ? legacy : defaultKekFile(env));
  if (await isInside(source.dataDir, file)) {
    log.warn('the key-encryption key file is inside DATA_DIR: a copy of DATA_DIR can open everything sealed in the store; move the file out and set DATA_KEY_ENCRYPTION_KEY_FILE to it', { file });
  } else if (legacyExists) {
    warnUnused();
  }
  return readKeyFile(file, log);
};
