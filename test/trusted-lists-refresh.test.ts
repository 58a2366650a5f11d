// The trusted list store over real HTTP on loopback and a real SQLite event store and blob
// directory: what a refresh fetches and records, every way a list is refused (each logged with
// its source, each changing nothing), staleness and restarts. Instants are passed in, so the
// staleness window is crossed without waiting.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import test from 'ava';
import type { EventStore } from '../src/eventstore/port.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { createLogger } from '../src/log.js';
import { directoryBlobStore } from '../src/blobStore.js';
import { trustListStream } from '../streams/trustList.js';
import { listKey } from '../src/trust/listRecord.js';
import { resolveIssuer } from '../src/trust/matching.js';
import { TrustListStore } from '../src/trust/trustListStore.js';
import { parseTrustListSources, type TrustListSource } from '../src/config/trust.js';
import type { TestIssuer } from './support/credentials.js';
import { startTrustWorld, type TrustWorld } from './support/trustListWorld.js';
import { signXmlList, trustedListXml } from './support/trustLists.js';

const HOUR = 3_600_000;

interface Rig {
  readonly world: TrustWorld;
  readonly store: EventStore;
  readonly dir: string;
  readonly logs: Record<string, unknown>[];
  lists(options?: { startedAt?: Date; maxBytes?: number; timeoutMs?: number }): Promise<TrustListStore>;
  close(): Promise<void>;
}

const rig = async (): Promise<Rig> => {
  const world = await startTrustWorld();
  const dir = await mkdtemp(join(tmpdir(), 'trust-lists-'));
  const store = await openSqliteEventStore({ file: join(dir, 'events.sqlite'), pollIntervalMs: 50 });
  const blobs = await directoryBlobStore(join(dir, 'blobs'));
  const logs: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'info', write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  const sources = parseTrustListSources(world.sources) as readonly TrustListSource[];
  return {
    world,
    store,
    dir,
    logs,
    lists: async (options = {}) =>
      new TrustListStore({
        sources,
        store,
        blobs,
        bounds: { timeoutMs: options.timeoutMs ?? 5000, maxBytes: options.maxBytes ?? 10 * 1024 * 1024 },
        stalenessWindowMs: 24 * HOUR,
        log,
        actor: 'test',
        startedAt: options.startedAt ?? new Date(Date.now() - 60_000),
      }),
    async close() {
      await store.close();
      await world.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

const outcomeOf = async (lists: TrustListStore, issuer: TestIssuer, now: Date, isPid = false) =>
  (await resolveIssuer(lists.snapshot(), [issuer.leaf.certificate], now, { isPid })).outcome;

const streamEvents = async (store: EventStore, stream: string): Promise<string[]> => {
  const read = await store.readStream(stream);
  return read._tag === 'Found' ? read.events.map((e) => e.type) : [];
};

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

test('a refresh follows the LoTL to its XML lists (never the PDF copy), records each version and keeps the signed document byte for byte', async (t) => {
  const r = await rig();
  try {
    const lists = await r.lists();
    const now = new Date();
    await lists.refresh(now);
    t.deepEqual(lists.snapshot().index.lists.map((l) => l.url).sort(), [r.world.urls.de, r.world.urls.fr, r.world.urls.lotl, r.world.urls.lote].sort());
    t.deepEqual(lists.snapshot().missing, []);
    t.is(r.world.server.hits(r.world.paths.dePdf), 0);
    t.deepEqual(await streamEvents(r.store, 'trustList-eu-lotl'), ['TrustListVersionAccepted']);
    const read = await r.store.readStream('trustList-eu-pid');
    if (read._tag !== 'Found') throw new Error('no LoTE stream');
    const recorded = read.events[0]!.data as Record<string, unknown>;
    t.like(recorded, { sourceId: 'eu-pid', format: 'lote', url: r.world.urls.lote, sequenceNumber: 1, territory: 'EU', parentUrl: null, fetchedAt: now.toISOString() });
    const blob = await readFile(join(r.dir, 'blobs', recorded['blob'] as string));
    t.is(sha256(blob), recorded['digest'] as string);
    t.is(await outcomeOf(lists, r.world.issuers.qeaa, now), 'trusted');
    t.is(await outcomeOf(lists, r.world.issuers.pid, now, true), 'trusted');
    t.is(await outcomeOf(lists, r.world.issuers.withdrawn, now), 'withdrawn');
    t.is(await outcomeOf(lists, r.world.issuers.suspended, now), 'suspended');
    t.is(await outcomeOf(lists, r.world.issuers.unknown, now), 'not_found');
    t.deepEqual([...lists.knownUrls()].sort(), [r.world.urls.de, r.world.urls.fr, r.world.urls.lotl, r.world.urls.lote].sort());

    await lists.refresh(new Date(now.getTime() + HOUR));
    t.deepEqual(await streamEvents(r.store, 'trustList-eu-lotl'), ['TrustListVersionAccepted', 'TrustListVersionConfirmed']);
  } finally {
    await r.close();
  }
});

/** Each way a national list is refused: what is served at the DE path, and the reason logged. */
const refusals: readonly { name: string; serve: (w: TrustWorld) => Promise<Buffer | 'hang' | number>; reason: RegExp; options?: { maxBytes?: number; timeoutMs?: number } }[] = [
  { name: 'tampered (one byte changed after signing)', serve: async (w) => Buffer.from((await w.deXml(8)).replace('QEAA Provider GmbH', 'QEAA Provider GmbX')), reason: /does not verify/ },
  { name: 'unsigned', serve: async () => Buffer.from(trustedListXml({ territory: 'DE', sequenceNumber: 8 })), reason: /^is not signed$/ },
  { name: 'signed by a key its LoTL pointer does not name', serve: async (w) => Buffer.from(await signXmlList(trustedListXml({ territory: 'DE', sequenceNumber: 8 }), w.signers.fr)), reason: /does not verify/ },
  { name: 'larger than X509_MAX_RESPONSE_BYTES', serve: async (w) => Buffer.from(`${await w.deXml(8)}${' '.repeat(70_000)}`), reason: /^response larger than 65536 bytes$/, options: { maxBytes: 65_536 } },
  // Long enough that the lists answering on loopback are never the ones timed out on a busy machine.
  { name: 'too slow (X509_LOTL_FETCH_TIMEOUT)', serve: async () => 'hang', reason: /^timed out after 5000 ms$/, options: { timeoutMs: 5000 } },
  { name: 'bearing a DOCTYPE (its signature still valid)', serve: async (w) => Buffer.from((await w.deXml(8)).replace('?>', '?><!DOCTYPE TrustServiceStatusList [<!ENTITY e "x">]>')), reason: /^carries a DOCTYPE declaration$/ },
  { name: 'rewinding the sequence number (properly signed)', serve: async (w) => Buffer.from(await w.deXml(6)), reason: /^sequence number 6 is lower than the recorded 7: refused as a rewind$/ },
  { name: 'redirected', serve: async () => 302, reason: /^answered HTTP 302 \(redirects are not followed\)$/ },
  { name: 'for another territory than its LoTL pointer', serve: async (w) => Buffer.from(await signXmlList(trustedListXml({ territory: 'FR', sequenceNumber: 8 }), w.signers.de)), reason: /^states territory FR, but its LoTL pointer is for DE$/ },
];

for (const refusal of refusals) {
  test(`a national list ${refusal.name} is refused with a log line naming its source, and changes nothing`, async (t) => {
    const r = await rig();
    try {
      const lists = await r.lists(refusal.options ?? {});
      const now = new Date();
      await lists.refresh(now);
      const deStream = trustListStream(listKey('eu-lotl', r.world.urls.de));
      const before = await streamEvents(r.store, deStream);
      const deDigest = lists.snapshot().index.lists.find((l) => l.url === r.world.urls.de)!.digest;
      const served = await refusal.serve(r.world);
      r.world.server.serve(r.world.paths.de, served === 'hang' ? 'hang' : typeof served === 'number' ? { status: served, body: Buffer.from('moved') } : { status: 200, body: served });
      r.logs.length = 0;
      await lists.refresh(new Date(now.getTime() + HOUR));
      const rejected = r.logs.filter((l) => l['msg'] === 'trust list rejected');
      t.is(rejected.length, 1);
      t.like(rejected[0], { level: 'warn', source: 'eu-lotl', url: r.world.urls.de });
      t.regex(rejected[0]!['reason'] as string, refusal.reason);
      t.is(lists.snapshot().index.lists.find((l) => l.url === r.world.urls.de)!.digest, deDigest);
      t.deepEqual(await streamEvents(r.store, deStream), before);
      // The other lists were refreshed as usual.
      t.deepEqual(await streamEvents(r.store, 'trustList-eu-pid'), ['TrustListVersionAccepted', 'TrustListVersionConfirmed']);
      t.is(await outcomeOf(lists, r.world.issuers.qeaa, new Date(now.getTime() + HOUR)), 'trusted');
    } finally {
      await r.close();
    }
  });
}

const freshnessOf = (lists: TrustListStore, url: string, now: Date) => {
  const snapshot = lists.snapshot();
  return snapshot.freshness(snapshot.index.lists.find((l) => l.url === url)!, now);
};

test('publisher down: the last good data keeps vouching within the staleness window, flagged cachedFallback; beyond it trust fails closed', async (t) => {
  const r = await rig();
  try {
    const lists = await r.lists();
    const t0 = new Date();
    await lists.refresh(t0);
    t.like(freshnessOf(lists, r.world.urls.de, t0), { usable: true, cachedFallback: false, pastNextUpdate: false });
    r.world.takeDown();
    const later = new Date(t0.getTime() + HOUR);
    await lists.refresh(later);
    t.is(r.logs.filter((l) => l['msg'] === 'trust list rejected' && /answered HTTP 503/.test(l['reason'] as string)).length, 4);
    t.like(freshnessOf(lists, r.world.urls.de, later), { usable: true, cachedFallback: true });
    t.is(freshnessOf(lists, r.world.urls.de, later).fetchedAt.getTime(), t0.getTime());
    t.is(await outcomeOf(lists, r.world.issuers.qeaa, later), 'trusted');

    const beyond = new Date(t0.getTime() + 25 * HOUR);
    await lists.refresh(beyond);
    t.false(freshnessOf(lists, r.world.urls.de, beyond).usable);
    t.is(await outcomeOf(lists, r.world.issuers.qeaa, beyond), 'unavailable');
    t.is(await outcomeOf(lists, r.world.issuers.pid, beyond, true), 'unavailable');
    t.is(await outcomeOf(lists, r.world.issuers.unknown, beyond), 'unavailable');
  } finally {
    await r.close();
  }
});

test('one national list failing past the window makes only the issuers it lists unavailable', async (t) => {
  const r = await rig();
  try {
    const lists = await r.lists();
    const t0 = new Date();
    await lists.refresh(t0);
    r.world.server.serve(r.world.paths.de, { status: 500, body: Buffer.from('broken') });
    const beyond = new Date(t0.getTime() + 25 * HOUR);
    await lists.refresh(beyond);
    t.is(await outcomeOf(lists, r.world.issuers.qeaa, beyond), 'unavailable');
    t.is(await outcomeOf(lists, r.world.issuers.withdrawn, beyond), 'unavailable');
    t.is(await outcomeOf(lists, r.world.issuers.pid, beyond, true), 'trusted');
    t.is(await outcomeOf(lists, r.world.issuers.suspended, beyond), 'suspended');
    // Found nowhere while a list it might be in cannot be read: not "not found".
    t.is(await outcomeOf(lists, r.world.issuers.unknown, beyond), 'unavailable');
  } finally {
    await r.close();
  }
});

test('a restart during a publisher outage starts from the last recorded snapshot, flagged cachedFallback', async (t) => {
  const r = await rig();
  try {
    const t0 = new Date(Date.now() - 2 * HOUR);
    await (await r.lists({ startedAt: new Date(t0.getTime() - 1000) })).refresh(t0);
    r.world.takeDown();
    const restartedAt = new Date();
    const lists = await r.lists({ startedAt: restartedAt });
    t.deepEqual(lists.snapshot().index.lists, []);
    await lists.load();
    t.is(lists.snapshot().index.lists.length, 4);
    t.like(freshnessOf(lists, r.world.urls.de, restartedAt), { usable: true, cachedFallback: true });
    t.is(await outcomeOf(lists, r.world.issuers.qeaa, restartedAt), 'trusted');
    await lists.refresh(restartedAt);
    t.is(await outcomeOf(lists, r.world.issuers.qeaa, restartedAt), 'trusted');
    t.is(await outcomeOf(lists, r.world.issuers.withdrawn, restartedAt), 'withdrawn');
    t.like(freshnessOf(lists, r.world.urls.de, restartedAt), { usable: true, cachedFallback: true });
    t.is(freshnessOf(lists, r.world.urls.de, restartedAt).fetchedAt.getTime(), t0.getTime());
  } finally {
    await r.close();
  }
});

test('the publisher back after a restart: fresh data, no longer flagged cachedFallback', async (t) => {
  const r = await rig();
  try {
    const t0 = new Date(Date.now() - HOUR);
    await (await r.lists({ startedAt: new Date(t0.getTime() - 1000) })).refresh(t0);
    const lists = await r.lists({ startedAt: new Date() });
    await lists.load();
    const now = new Date();
    t.true(freshnessOf(lists, r.world.urls.de, now).cachedFallback);
    await lists.refresh(now);
    t.false(freshnessOf(lists, r.world.urls.de, now).cachedFallback);
  } finally {
    await r.close();
  }
});

test('a list past its NextUpdate is flagged pastNextUpdate and fetched again at the interval, never in a tight loop', async (t) => {
  const r = await rig();
  try {
    const t0 = new Date();
    const nextUpdate = new Date(t0.getTime() + 30 * 60_000);
    r.world.server.serve(r.world.paths.de, { status: 200, body: Buffer.from(await r.world.deXml(7, { nextUpdate })) });
    const lists = await r.lists();
    await lists.refresh(t0);
    t.is(lists.nextRefreshDelay(t0, 6 * HOUR), 30 * 60_000);
    t.false(freshnessOf(lists, r.world.urls.de, t0).pastNextUpdate);
    const after = new Date(t0.getTime() + HOUR);
    t.true(freshnessOf(lists, r.world.urls.de, after).pastNextUpdate);
    t.is(lists.nextRefreshDelay(after, 6 * HOUR), 6 * HOUR);
    t.is(lists.nextRefreshDelay(after, 2000), 2000);
  } finally {
    await r.close();
  }
});

test('a version another writer recorded (ops, another instance) is adopted when this instance cannot fetch the list', async (t) => {
  const r = await rig();
  try {
    const service = await r.lists();
    const t0 = new Date();
    await service.refresh(t0);
    r.world.server.serve(r.world.paths.de, { status: 200, body: Buffer.from(await r.world.deXml(8)) });
    const ops = await r.lists();
    await ops.load();
    await ops.refresh(new Date(t0.getTime() + HOUR));
    const recorded = ops.snapshot().index.lists.find((l) => l.url === r.world.urls.de)!;
    t.is(recorded.list.sequenceNumber, 8);
    r.world.server.serve(r.world.paths.de, { status: 503, body: Buffer.from('down') });
    await service.refresh(new Date(t0.getTime() + 2 * HOUR));
    const adopted = service.snapshot().index.lists.find((l) => l.url === r.world.urls.de)!;
    t.is(adopted.list.sequenceNumber, 8);
    t.is(adopted.digest, recorded.digest);
  } finally {
    await r.close();
  }
});
