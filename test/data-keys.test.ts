// Crypto-shredding: sealed data is readable while its key exists and gone once it is destroyed.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { fileKek } from '../src/crypto/kek.js';
import * as t_ from 'io-ts';
import { sealedFor, sealedPurpose, type Sealed } from '../streams/dataKey.js';
import type { Json } from '../streams/kernel.js';
import { CLAIMS } from '../streams/offerFacts.js';
import { purposes } from '../streams/presentationSealed.js';
import { dataKeys, openFor, sealFor } from '../src/crypto/dataKeys.js';
import { Readable, type Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { CHUNK_BYTES, openStream, sealStream } from '../src/crypto/sealedStream.js';
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

test('a value sealed for a typed purpose opens as that purpose\'s type, under the same name on the wire; another shape or purpose throws', async (t) => {
  await withStore(async (_dir, keys) => {
    const issued = await keys.issue(randomUUID());
    if (!isRight(issued)) throw new Error('not issued');
    const key = issued.right;
    const GIVEN_NAME = sealedPurpose('given-name', t_.string);
    const sealed = sealFor(key, GIVEN_NAME, 'Erika');
    t.deepEqual(Object.keys(sealed), ['alg', 'iv', 'ciphertext', 'tag']);
    const opened: string = openFor(key, GIVEN_NAME, sealed);
    t.is(opened, 'Erika');
    // The purpose's name is what is bound in: the string-named open reads it too.
    t.is(key.open(sealed, 'given-name'), 'Erika');
    const AGE = sealedPurpose('age', t_.number);
    // Read back from an event as sealed for `age`, but what was sealed is a string.
    const stored = sealedFor(AGE).decode(JSON.parse(JSON.stringify(key.seal('Erika', 'age'))));
    if (!isRight(stored)) throw new Error('not a sealed value');
    t.throws(() => openFor(key, AGE, stored.right), { message: /sealed for age breaks its contract/ });
    t.throws(() => openFor(key, sealedPurpose('family-name', t_.string), sealed));
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

/** Runs `bytes` through a transform, as chunks of `size`; the output, or the error. */
const through = async (transform: Transform, bytes: Buffer, size = 10_000): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return buffer(Readable.from(chunks).pipe(transform));
};

const opened = (key: Buffer, aad: string, sealed: Buffer): Promise<Buffer> => {
  const open = openStream(key, aad);
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    open.on('data', (chunk: Buffer) => out.push(chunk)).on('end', () => resolve(Buffer.concat(out))).on('error', reject);
    open.end(sealed);
  });
};

test('a sealed stream opens to its bytes, whatever their length, with its key and associated data only', async (t) => {
  const key = randomBytes(32);
  for (const length of [0, 1, CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1, 3 * CHUNK_BYTES + 17]) {
    const plaintext = randomBytes(length);
    const sealed = await through(sealStream(key, 'blob.1/content'), plaintext);
    t.true(sealed.length > length, `${length}`);
    t.deepEqual(await opened(key, 'blob.1/content', sealed), plaintext, `${length}`);
    await t.throwsAsync(opened(key, 'blob.2/content', sealed), undefined, `other associated data, ${length}`);
    await t.throwsAsync(opened(randomBytes(32), 'blob.1/content', sealed), undefined, `other key, ${length}`);
  }
});

test('a sealed stream altered, cut at a chunk boundary, reordered or extended does not open', async (t) => {
  const key = randomBytes(32);
  const plaintext = randomBytes(3 * CHUNK_BYTES);
  const sealed = await through(sealStream(key, 'a'), plaintext);
  const header = 11;
  const record = CHUNK_BYTES + 16;
  t.is(sealed.length, header + 3 * record);
  const flipped = Buffer.from(sealed);
  flipped[header + record + 5]! ^= 1;
  await t.throwsAsync(opened(key, 'a', flipped));
  // The first two chunks alone: the second is not flagged last.
  await t.throwsAsync(opened(key, 'a', sealed.subarray(0, header + 2 * record)));
  const swapped = Buffer.concat([sealed.subarray(0, header), sealed.subarray(header + record, header + 2 * record), sealed.subarray(header, header + record), sealed.subarray(header + 2 * record)]);
  await t.throwsAsync(opened(key, 'a', swapped));
  await t.throwsAsync(opened(key, 'a', Buffer.concat([sealed, sealed.subarray(header, header + record)])));
  await t.throwsAsync(opened(key, 'a', sealed.subarray(0, 5)));
  t.deepEqual(await opened(key, 'a', sealed), plaintext);
});

test('a data key seals and opens streams for its owner and purpose', async (t) => {
  await withStore(async (_dir, keys) => {
    const owner = randomUUID();
    const issued = await keys.issue(owner);
    if (!isRight(issued)) throw new Error('not issued');
    const sealed = await through(issued.right.sealStream('content'), Buffer.from('Erika Mustermann'));
    t.false(sealed.includes(Buffer.from('Erika')));
    const found = await keys.find(owner);
    t.is((await through(found!.openStream('content'), sealed)).toString(), 'Erika Mustermann');
    await t.throwsAsync(through(found!.openStream('other'), sealed));
  });
});

test('issuance and verification values sealed under their string purposes (events already recorded) open with the typed purposes; another purpose, or another kid\'s key, throws', async (t) => {
  await withStore(async (_dir, keys) => {
    const issued = await keys.issue(randomUUID());
    if (!isRight(issued)) throw new Error('not issued');
    const key = issued.right;
    // Read back from a recorded event, as sealed then: under the purpose names written out.
    const recorded = <T extends Json>(codec: t_.Type<Sealed<T>, Sealed<T>, unknown>, value: Json, name: string): Sealed<T> => {
      const read = codec.decode(JSON.parse(JSON.stringify(key.seal(value, name))));
      if (!isRight(read)) throw new Error('not a sealed value');
      return read.right;
    };
    const claims = { given_name: 'Erika', address: { locality: 'Berlin' } };
    t.deepEqual(openFor(key, CLAIMS, recorded(sealedFor(CLAIMS), claims, 'claims')), claims);
    const request = { dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt' }] }, transactionData: [], redirectUri: 'https://verifier.example/done' };
    t.deepEqual(openFor(key, purposes.request, recorded(sealedFor(purposes.request), request, 'presentation-request')), request);
    const jwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' } as const;
    const responseKey = recorded(sealedFor(purposes.responseKey('kid-1')), jwk, 'response-key/kid-1');
    t.deepEqual(openFor(key, purposes.responseKey('kid-1'), responseKey), jwk);
    t.deepEqual(openFor(key, purposes.annexCRecipientKey, recorded(sealedFor(purposes.annexCRecipientKey), jwk, 'annex-c-recipient-key')), jwk);
    const presented = { credentials: { pid: [{ issuer: 'https://issuer.example', claims: claims }] }, credentialsRaw: { pid: [{ issuer: 'https://issuer.example', claims: 'e30' }] } };
    const sealedPresented = recorded(sealedFor(purposes.presentedCredentials), presented, 'presented-credentials');
    t.deepEqual(openFor(key, purposes.presentedCredentials, sealedPresented), presented);
    // And what the typed purposes seal opens under the names written out (the wire form is the same).
    t.deepEqual(key.open(sealFor(key, purposes.responseKey('kid-1'), jwk), 'response-key/kid-1'), jwk);
    t.deepEqual(key.open(sealFor(key, CLAIMS, claims), 'claims'), claims);
    // The callback names the purpose in its data; it is the same name.
    t.is(purposes.presentedCredentials.name, 'presented-credentials');

    // Bound to its purpose: one request's key is not another's, a key is not the Annex C key, claims are not credentials.
    t.throws(() => openFor(key, purposes.responseKey('kid-2'), responseKey));
    t.throws(() => openFor(key, purposes.annexCRecipientKey, responseKey));
    t.throws(() => openFor(key, purposes.request, recorded(sealedFor(purposes.request), request, 'presented-credentials')));
    t.throws(() => openFor(key, CLAIMS, recorded(sealedFor(CLAIMS), claims, 'presented-credentials')));
    // Sealed under the right name but not the purpose's shape: a broken contract.
    t.throws(() => openFor(key, purposes.responseKey('kid-1'), recorded(sealedFor(purposes.responseKey('kid-1')), { kty: 'OKP', crv: 'X25519', x: 'x', d: 'd' }, 'response-key/kid-1')), {
      message: /sealed for response-key\/kid-1 breaks its contract/,
    });
  });
});
