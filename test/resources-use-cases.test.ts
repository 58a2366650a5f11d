// The resource API's management steps as use cases, without HTTP, on a real embedded store: create,
// update annotations and labels under If-Match, delete, restore, and a creation under an
// Idempotency-Key (replayed for the same request, refused for another, malformed keys refused), and a
// presentation's creation refused for credentials that are not the tenant's.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js';
import { etagOf, type Target } from '../streams/resource.js';
import { fileKek } from '../src/crypto/kek.js';
import { dataKeys } from '../src/crypto/dataKeys.js';
import type { EventStore, Json } from '../src/eventstore/port.js';
import { silentLogger } from '../src/log.js';
import { sealedBlobStore } from '../src/blobStore.js';
import { recordCreation } from '../src/resources/create.js';
import { CreateBody, createPresentation } from '../src/resources/createPresentation.js';
import { fingerprintOf, idempotently, type IdempotentRequest } from '../src/resources/idempotency.js';
import { resourceReply } from '../src/resources/envelope.js';
import { schemasKind } from '../src/resources/schemas.js';
import { updateResource } from '../src/resources/update.js';
import { join } from 'node:path';
import { openRunner, withStoreDir } from './support/readmodels.js';

const TENANT = 'tenant-1';
const AT = '2026-05-01T10:00:00.000Z';
const LATER = '2026-05-02T10:00:00.000Z';
const metadata = { actor: 'apikey:key-1', requestId: 'request-1' };

const creation = (schemaId: string) => ({
  type: 'CreateSchema' as const,
  data: { schemaId, tenantId: TENANT, slug: 'diploma', version: '1.0', schema: { type: 'object' }, annotations: {}, labels: { team: 'a' }, at: AT },
});

const create = async (store: EventStore) => {
  const id = randomUUID();
  const created = await recordCreation(store, schemasKind, id, creation(id), metadata);
  return { id, created };
};

/** A change of resource `id` of TENANT whose If-Match names `etag`. */
const target = (id: string, etag: string, tenantId = TENANT): Target => ({ tenantId, id, ifMatch: (current) => current === etag, at: LATER });

const right = <L, R>(result: Either<L, R>): R => {
  if (isLeft(result)) throw new Error(`refused: ${JSON.stringify(result.left)}`);
  return result.right;
};

test('create: the first event recorded, revision 1 of the tenant; the same creation retried is not recorded twice', async (t) => {
  await withStoreDir('use-cases-', async (_dir, store) => {
    const { id, created } = await create(store);
    t.like(created.envelope, { id, tenantId: TENANT, revision: 1, createdAt: AT, deletedAt: null, labels: { team: 'a' } });
    // The same creation again (a retry) is taken as written: named by the id, it is not appended twice.
    t.like(await recordCreation(store, schemasKind, id, creation(id), metadata), { envelope: { revision: 1 } });
    const read = await store.readStream(schemasKind.streamOf(id));
    t.true(read._tag === 'Found' && read.events.length === 1 && read.events[0]!.type === 'SchemaCreated');
  });
});

test('update annotations and labels: under the current etag the next revision; a stale one PreconditionFailed; another tenant\'s NotFound', async (t) => {
  await withStoreDir('use-cases-', async (_dir, store) => {
    const { id } = await create(store);
    const annotated = right(await updateResource(store, schemasKind, target(id, etagOf(id, 1)), { type: 'UpdateAnnotations', data: { annotations: { note: 'x' } } }, metadata));
    t.like(annotated.envelope, { revision: 2, annotations: { note: 'x' }, modifiedAt: LATER });
    t.deepEqual(await updateResource(store, schemasKind, target(id, etagOf(id, 1)), { type: 'UpdateLabels', data: { labels: { team: 'b' } } }, metadata), { _tag: 'Left', left: { _tag: 'PreconditionFailed' } });
    const labelled = right(await updateResource(store, schemasKind, target(id, etagOf(id, 2)), { type: 'UpdateLabels', data: { labels: { team: 'b' } } }, metadata));
    t.like(labelled.envelope, { revision: 3, labels: { team: 'b' }, annotations: { note: 'x' } });
    t.deepEqual(await updateResource(store, schemasKind, target(id, etagOf(id, 3), 'tenant-2'), { type: 'Delete', data: {} }, metadata), { _tag: 'Left', left: { _tag: 'NotFound' } });
    t.deepEqual(await updateResource(store, schemasKind, target(randomUUID(), etagOf(id, 3)), { type: 'Delete', data: {} }, metadata), { _tag: 'Left', left: { _tag: 'NotFound' } });
  });
});

test('delete and restore: deleted, then a change is Conflict deleted; restored, live again; restoring a live one is Conflict not_deleted', async (t) => {
  await withStoreDir('use-cases-', async (_dir, store) => {
    const { id } = await create(store);
    const deleted = right(await updateResource(store, schemasKind, target(id, etagOf(id, 1)), { type: 'Delete', data: {} }, metadata));
    t.like(deleted.envelope, { revision: 2, deletedAt: LATER });
    t.deepEqual(await updateResource(store, schemasKind, target(id, etagOf(id, 2)), { type: 'UpdateLabels', data: { labels: {} } }, metadata), { _tag: 'Left', left: { _tag: 'Conflict', reason: 'deleted' } });
    const restored = right(await updateResource(store, schemasKind, target(id, etagOf(id, 2)), { type: 'Restore', data: {} }, metadata));
    t.like(restored.envelope, { revision: 3, deletedAt: null });
    t.deepEqual(await updateResource(store, schemasKind, target(id, etagOf(id, 3)), { type: 'Restore', data: {} }, metadata), { _tag: 'Left', left: { _tag: 'Conflict', reason: 'not_deleted' } });
    const read = await store.readStream(schemasKind.streamOf(id));
    t.deepEqual(read._tag === 'Found' ? read.events.map((e) => e.type) : [], ['SchemaCreated', 'SchemaDeleted', 'SchemaRestored']);
  });
});

test('idempotent create: the same request under one key is created once and replayed; another request under it is refused; a malformed key is refused', async (t) => {
  await withStoreDir('use-cases-', async (_dir, store) => {
    const answer = idempotently({ store, dataKeys: dataKeys(store, fileKek(randomBytes(32))), log: silentLogger, keyLifetimeSeconds: 3600, now: () => new Date() });
    const body = { slug: 'diploma', version: '1.0' };
    const request = (key: string, given: Json = body): IdempotentRequest => ({ tenantId: TENANT, key, fingerprint: fingerprintOf('POST', '/schemas', '', given), metadata });
    let creations = 0;
    const execute = async () => {
      creations++;
      const { created } = await create(store);
      return resourceReply(created.envelope, 201);
    };
    const key = randomBytes(24).toString('hex');
    const first = right(await answer(request(key), execute));
    const again = right(await answer(request(key), execute));
    t.is(creations, 1);
    t.false(first.replayed);
    t.true(again.replayed);
    t.deepEqual(again.reply, first.reply);
    t.deepEqual(await answer(request(key, { ...body, version: '2.0' }), execute), { _tag: 'Left', left: { _tag: 'IdempotencyKeyReused' } });
    t.deepEqual(await answer(request('short'), execute), { _tag: 'Left', left: { _tag: 'IdempotencyKeyMalformed', key: 'short' } });
    t.is(creations, 1);
    // Without a key, every request writes.
    t.true(isRight(await answer(request(''), execute)));
    t.is(creations, 2);
  });
});

test('create presentation: credential ids that name no live credential of the tenant are refused, each located, and nothing is made', async (t) => {
  await withStoreDir('use-cases-', async (dir, store) => {
    const runner = await openRunner(store, join(dir, 'read.sqlite'));
    try {
      const blobs = await sealedBlobStore(join(dir, 'blobs'));
      const content = { store, dataKeys: dataKeys(store, fileKek(randomBytes(32))), blobs };
      const ids = [randomUUID(), randomUUID()];
      const made = await createPresentation({ db: runner.db, content, now: () => new Date(AT) }, TENANT, 'did:web:example.com:tenants:tenant-1', right(CreateBody.decode({ credentials: ids })));
      t.deepEqual(made, {
        _tag: 'Left',
        left: {
          _tag: 'CredentialsMissing',
          refused: ids.map((id, i) => ({ location: `body.credentials[${i}]`, message: 'no credential of this tenant has this id', value: id })),
        },
      });
      t.deepEqual(await blobs.list(), []);
      t.deepEqual(await store.readAll(), []);
    } finally {
      await runner.close();
    }
  });
});
