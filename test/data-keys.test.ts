// Crypto-shredding: sealed data is readable while its key exists and gone once it is destroyed.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { fileKek } from '../src/crypto/kek.js';
import { dataKeys } from '../src/crypto/dataKeys.js';
import { openStore } from './support/readmodels.js';

const withStore = async (body: (dir: string, keys: ReturnType<typeof dataKeys>) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), 'datakeys-'));
  const store = await openStore(dir);
  try {
    await body(dir, dataKeys(store, fileKek(randomBytes(32))));
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

test('a value sealed with a data key opens with it, for its purpose only', async (t) => {
  await withStore(async (_dir, keys) => {
    const owner = randomUUID();
    const issued = await keys.issue(owner);
    if (!isRight(issued)) throw new Error('not issued');
    const sealed = issued.right.seal({ given_name: 'Erika' }, 'claims');
    t.false(JSON.stringify(sealed).includes('Erika'));
    const found = await keys.find(owner);
    t.deepEqual(found?.open(sealed, 'claims'), { given_name: 'Erika' });
    t.throws(() => found?.open(sealed, 'other-purpose'));
    const other = await keys.issue(randomUUID());
    t.throws(() => (isRight(other) ? other.right.open(sealed, 'claims') : undefined));
    t.true(isLeft(await keys.issue(owner)));
  });
});

test('a destroyed key is gone: nothing opens, and its bytes are erased from the store file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'datakeys-'));
  try {
    const store = await openStore(dir);
    const keys = dataKeys(store, fileKek(randomBytes(32)));
    const owner = randomUUID();
    t.true(isRight(await keys.issue(owner)));
    const read = await store.readStream(`datakey-${owner}`);
    const wrapped = read._tag === 'Found' ? (read.events[0]!.data as { wrappedKey: { ciphertext: string } }).wrappedKey.ciphertext : '';
    t.is(wrapped.length, 43);
    await keys.destroy(owner);
    await keys.destroy(owner);
    t.is(await keys.find(owner), undefined);
    t.true(isLeft(await keys.issue(owner)));
    // Closing checkpoints the WAL into the file; the erased row must not be in either.
    await store.close();
    const files = await Promise.all(['events.sqlite', 'events.sqlite-wal'].map((f) => readFile(join(dir, f)).catch(() => Buffer.alloc(0))));
    t.false(Buffer.concat(files).toString('latin1').includes(wrapped));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
