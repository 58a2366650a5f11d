// Where the key-encryption key comes from, and the warnings when it (or another one) sits in
// DATA_DIR, where a copy of the data directory would carry it along.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultKekFile, KEK_FILE, loadKek } from '../src/crypto/kek.js';
import { createLogger, silentLogger, type Logger } from '../src/log.js';
import { startService } from '../src/app/service.js';
import { testConfig } from './support/service.js';

const withDir = async (body: (dir: string) => Promise<void>): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'kek-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const capture = (): { log: Logger; lines: { level: string; msg: string; file?: string }[] } => {
  const lines: { level: string; msg: string; file?: string }[] = [];
  return { lines, log: createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as (typeof lines)[number]) }) };
};

const warnings = (lines: { level: string; msg: string }[]) => lines.filter((l) => l.level === 'warn' && /key-encryption key/.test(l.msg));

const unset = { dataKeyEncryptionKey: undefined, dataKeyEncryptionKeyFile: undefined };

test('the default key file is in the user configuration directory: XDG_CONFIG_HOME when absolute, else ~/.config', (t) => {
  t.is(defaultKekFile({ XDG_CONFIG_HOME: '/etc/xdg-home', HOME: '/home/op' }), `/etc/xdg-home/eudi-connector/${KEK_FILE}`);
  t.is(defaultKekFile({ HOME: '/home/op' }), `/home/op/.config/eudi-connector/${KEK_FILE}`);
  t.is(defaultKekFile({ XDG_CONFIG_HOME: 'relative/dir', HOME: '/home/op' }), `/home/op/.config/eudi-connector/${KEK_FILE}`);
});

test('with nothing configured, the key is made once outside DATA_DIR, 0600 in a 0700 directory, and reused; two first starts agree', async (t) => {
  await withDir(async (dir) => {
    const dataDir = join(dir, 'data');
    const env = { XDG_CONFIG_HOME: join(dir, 'config') };
    const { log, lines } = capture();
    const [a, b] = await Promise.all([loadKek({ dataDir, ...unset }, log, env), loadKek({ dataDir, ...unset }, log, env)]);
    t.deepEqual(a, b);
    t.is(a.length, 32);
    t.deepEqual(await loadKek({ dataDir, ...unset }, log, env), a);
    const file = defaultKekFile(env);
    t.deepEqual(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url'), a);
    t.is((await stat(file)).mode & 0o777, 0o600);
    t.is((await stat(join(dir, 'config', 'eudi-connector'))).mode & 0o777, 0o700);
    t.deepEqual(await readdir(join(dir, 'config', 'eudi-connector')), [KEK_FILE], 'no temporary file left behind');
    t.deepEqual(warnings(lines), []);
    t.is(lines.filter((l) => l.msg.startsWith('key-encryption key file created')).length, 1);
    await t.throwsAsync(stat(join(dataDir, KEK_FILE)));
  });
});

test('DATA_KEY_ENCRYPTION_KEY wins over DATA_KEY_ENCRYPTION_KEY_FILE, which wins over the default', async (t) => {
  await withDir(async (dir) => {
    const env = { XDG_CONFIG_HOME: join(dir, 'config') };
    const configured = randomBytes(32).toString('base64url');
    const file = join(dir, 'keys', 'kek');
    const fromValue = await loadKek({ dataDir: join(dir, 'data'), dataKeyEncryptionKey: configured, dataKeyEncryptionKeyFile: file }, silentLogger, env);
    t.deepEqual(fromValue, Buffer.from(configured, 'base64url'));
    await t.throwsAsync(stat(file), undefined, 'a configured key makes no file');
    const fromFile = await loadKek({ dataDir: join(dir, 'data'), dataKeyEncryptionKey: undefined, dataKeyEncryptionKeyFile: file }, silentLogger, env);
    t.deepEqual(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url'), fromFile);
    await t.throwsAsync(stat(defaultKekFile(env)));
  });
});

test('an old install keeps its key file in DATA_DIR, used with a warning at start', async (t) => {
  await withDir(async (dir) => {
    const dataDir = join(dir, 'data');
    await mkdir(dataDir);
    const old = randomBytes(32);
    await writeFile(join(dataDir, KEK_FILE), old.toString('base64url'), { mode: 0o600 });
    const { log, lines } = capture();
    // DATA_KEY_ENCRYPTION_KEY_FILE unset, as on the old install.
    const service = await startService(testConfig(dataDir, { DATA_KEY_ENCRYPTION_KEY_FILE: '' }), log);
    try {
      t.deepEqual(service.context.kek, old);
      t.like(warnings(lines), [{ msg: 'the key-encryption key file is inside DATA_DIR: a copy of DATA_DIR can open everything sealed in the store; move the file out and set DATA_KEY_ENCRYPTION_KEY_FILE to it', file: join(dataDir, KEK_FILE) }]);
      t.is(warnings(lines).length, 1, 'once per start');
    } finally {
      await service.stop();
    }
  });
});

test('a key file configured inside DATA_DIR, directly or through a symbolic link, is warned about at start; one outside is not', async (t) => {
  await withDir(async (dir) => {
    const dataDir = join(dir, 'data');
    await mkdir(dataDir);
    await symlink(dataDir, join(dir, 'link'));
    const warned = async (file: string): Promise<string[]> => {
      const { log, lines } = capture();
      const service = await startService(testConfig(dataDir, { DATA_KEY_ENCRYPTION_KEY_FILE: file }), log);
      await service.stop();
      return warnings(lines).map((l) => l.msg);
    };
    const inside = 'the key-encryption key file is inside DATA_DIR: a copy of DATA_DIR can open everything sealed in the store; move the file out and set DATA_KEY_ENCRYPTION_KEY_FILE to it';
    t.deepEqual(await warned(join(dataDir, 'secrets', 'kek')), [inside]);
    t.deepEqual(await warned(join(dir, 'link', 'kek')), [inside]);
    t.deepEqual(await warned(join(dir, 'kek')), []);
  });
});

test('a key file left in DATA_DIR but not used is warned about', async (t) => {
  await withDir(async (dir) => {
    const dataDir = join(dir, 'data');
    await mkdir(dataDir);
    await writeFile(join(dataDir, KEK_FILE), randomBytes(32).toString('base64url'), { mode: 0o600 });
    for (const config of [
      { dataDir, dataKeyEncryptionKey: undefined, dataKeyEncryptionKeyFile: join(dir, 'kek') },
      { dataDir, dataKeyEncryptionKey: randomBytes(32).toString('base64url'), dataKeyEncryptionKeyFile: undefined },
    ]) {
      const { log, lines } = capture();
      await loadKek(config, log);
      t.like(warnings(lines), [{ msg: 'DATA_DIR holds a key-encryption key file that is not used: delete it, or move it out if data was sealed with it', file: join(dataDir, KEK_FILE) }]);
    }
  });
});

test('a key file other users can read is warned about; a malformed one or one that cannot be made stops the start', async (t) => {
  await withDir(async (dir) => {
    const dataDir = join(dir, 'data');
    const open = join(dir, 'open.key');
    await writeFile(open, randomBytes(32).toString('base64url'));
    await chmod(open, 0o644);
    const { log, lines } = capture();
    await loadKek({ dataDir, dataKeyEncryptionKey: undefined, dataKeyEncryptionKeyFile: open }, log);
    t.like(warnings(lines), [{ msg: 'the key-encryption key file is accessible to other users: make it mode 0600', file: open }]);

    const short = join(dir, 'short.key');
    await writeFile(short, randomBytes(16).toString('base64url'), { mode: 0o600 });
    await t.throwsAsync(loadKek({ dataDir, dataKeyEncryptionKey: undefined, dataKeyEncryptionKeyFile: short }, silentLogger), { message: `${short} does not hold a 32-byte base64url key` });

    // A regular file where the key file's directory should be.
    const blocked = join(open, 'kek');
    await t.throwsAsync(loadKek({ dataDir, dataKeyEncryptionKey: undefined, dataKeyEncryptionKeyFile: blocked }, silentLogger), {
      message: `cannot create the key-encryption key file ${blocked} (ENOTDIR): set DATA_KEY_ENCRYPTION_KEY_FILE to a writable place, or DATA_KEY_ENCRYPTION_KEY`,
    });
    await t.throwsAsync(startService(testConfig(dataDir, { DATA_KEY_ENCRYPTION_KEY_FILE: blocked }), silentLogger), { message: /DATA_KEY_ENCRYPTION_KEY_FILE/ });
    await t.throwsAsync(stat(dataDir), undefined, 'a start without its key opens nothing');
  });
});
