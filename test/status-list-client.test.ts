// The verifier's Status List Token client on its own: one fetch in flight per uri however many ask,
// a token held for its ttl (from the fetch), never past its exp nor past the configured cap, memory
// bounded over all lists, failures never held, and oversized answers refused. Time is the `now`
// each call passes, so nothing here waits on a clock.
import test from 'ava';
import { deflateSync } from 'node:zlib';
import { isLeft } from 'fp-ts/lib/Either.js';
import { createStatusListClient, type StatusListClientOptions } from '../src/verification/status/statusListClient.js';
import { statusAt } from '../src/statusList/statusList.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import { createTestIssuer, type TestIssuer } from './support/credentials.js';
import { leftOf, rightOf } from './support/either.js';
import { packLst, signStatusList, startStatusListServer, type StatusListServer } from './support/statusLists.js';

const trust = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl: createCrlChecker({ timeoutMs: 1000 }) });

const clientWith = (overrides: Partial<StatusListClientOptions> = {}) =>
  createStatusListClient({ fetch: { timeoutMs: 2000, maxBytes: 1 << 20 }, trust, cacheMaxSeconds: 300, cacheMaxBytes: 1 << 24, ...overrides });

let issuer: TestIssuer;
let server: StatusListServer;

test.before(async () => {
  issuer = await createTestIssuer();
  server = await startStatusListServer();
});

test.after.always(async () => {
  await server?.close();
});

const signer = () => ({ privateKey: issuer.leaf.keys.privateKey, x5c: issuer.x5c });

/** Serves at `path` a 1-bit list of 16 whose entry 0 is `first`, valid from `iat` (seconds). */
const serve = async (path: string, first: number, claims: { iat?: number; exp?: number | null; ttl?: number | null } = {}) =>
  server.serve(path, { status: 200, body: await signStatusList(signer(), { sub: server.url(path), lst: packLst(1, 16, { 0: first }), ...claims }) });

// A whole second, so NumericDates in the tokens and `now` agree exactly.
const T0 = Math.floor(Date.now() / 1000) * 1000;
const at = (ms: number) => new Date(T0 + ms);
const secondsAt = (ms: number) => Math.floor((T0 + ms) / 1000);

test('many presentations needing one list at once make one fetch', async (t) => {
  await serve('/once', 1, { iat: secondsAt(0), exp: secondsAt(3_600_000), ttl: 60 });
  const client = clientWith();
  const results = await Promise.all(Array.from({ length: 20 }, () => client.get(server.url('/once'), at(0))));
  t.true(results.every((r) => !isLeft(r) && statusAt(r.right.list, 0) === 1));
  t.is(server.hits('/once'), 1);
});

test('a list is held for its ttl from the fetch, then fetched again and the change seen', async (t) => {
  const path = '/ttl';
  await serve(path, 0, { iat: secondsAt(0), exp: secondsAt(3_600_000), ttl: 60 });
  const client = clientWith();
  t.is(statusAt(rightOf(await client.get(server.url(path), at(0))).list, 0), 0);
  await serve(path, 1, { iat: secondsAt(0), exp: secondsAt(3_600_000), ttl: 60 });
  t.is(statusAt(rightOf(await client.get(server.url(path), at(59_999))).list, 0), 0);
  t.is(server.hits(path), 1);
  t.is(statusAt(rightOf(await client.get(server.url(path), at(60_000))).list, 0), 1);
  t.is(server.hits(path), 2);
});

test('exp ends holding before ttl does; without ttl the cap ends it; a huge ttl is capped too', async (t) => {
  await serve('/exp', 0, { iat: secondsAt(0), exp: secondsAt(30_000), ttl: 600 });
  await serve('/no-ttl', 0, { iat: secondsAt(0), exp: secondsAt(3_600_000), ttl: null });
  await serve('/huge-ttl', 0, { iat: secondsAt(0), exp: null, ttl: 10_000_000 });
  const client = clientWith({ cacheMaxSeconds: 120 });
  for (const path of ['/exp', '/no-ttl', '/huge-ttl']) rightOf(await client.get(server.url(path), at(0)));
  rightOf(await client.get(server.url('/exp'), at(29_000)));
  t.is(server.hits('/exp'), 1);
  // At exp the held token is not relied on; the one fetched again has expired as well.
  t.regex(leftOf(await client.get(server.url('/exp'), at(30_000))), /^expired at /);
  t.is(server.hits('/exp'), 2);
  for (const path of ['/no-ttl', '/huge-ttl']) {
    rightOf(await client.get(server.url(path), at(119_000)));
    t.is(server.hits(path), 1, path);
    rightOf(await client.get(server.url(path), at(120_000)));
    t.is(server.hits(path), 2, path);
  }
});

test('a failure is not held: the next presentation fetches again', async (t) => {
  const path = '/flaky';
  server.serve(path, { status: 503, body: '' });
  const client = clientWith();
  t.is(leftOf(await client.get(server.url(path), at(0))), 'answered HTTP 503');
  await serve(path, 0, { iat: secondsAt(0) });
  rightOf(await client.get(server.url(path), at(1)));
  t.is(server.hits(path), 2);
});

test('memory is bounded over all lists: past the budget the least recently used list goes', async (t) => {
  for (const path of ['/a', '/b', '/c']) await serve(path, 0, { iat: secondsAt(0), exp: secondsAt(3_600_000), ttl: 600 });
  const one = (await (await fetch(server.url('/a'))).text()).length + 2;
  // Room for two lists (each its 2 bytes of statuses and its token), not three.
  const client = clientWith({ cacheMaxBytes: 2 * one + 10 });
  const hits = () => ['/a', '/b', '/c'].map((p) => server.hits(p));
  const before = hits();
  for (const path of ['/a', '/b', '/a', '/c']) rightOf(await client.get(server.url(path), at(0)));
  // /b was the least recently used when /c came.
  rightOf(await client.get(server.url('/a'), at(0)));
  rightOf(await client.get(server.url('/b'), at(0)));
  t.deepEqual(hits().map((h, i) => h - before[i]!), [1, 2, 1]);
});

test('a response or a list over STATUS_LIST_MAX_BYTES is refused', async (t) => {
  const big = 'x'.repeat(5000);
  server.serve('/big', { status: 200, body: big });
  const bomb = deflateSync(Buffer.alloc(1 << 16)).toString('base64url');
  server.serve('/bomb', { status: 200, body: await signStatusList(signer(), { sub: server.url('/bomb'), lst: bomb }) });
  const client = clientWith({ fetch: { timeoutMs: 2000, maxBytes: 4096 } });
  t.is(leftOf(await client.get(server.url('/big'), at(0))), 'response larger than 4096 bytes');
  t.is(leftOf(await client.get(server.url('/bomb'), new Date())), 'status_list.lst decompresses to more than 4096 bytes');
});

test('a uri that is not http(s), or carries credentials, is not fetched', async (t) => {
  const client = clientWith();
  t.is(leftOf(await client.get('file:///etc/passwd', at(0))), 'is not an http(s) URL without credentials');
  t.is(leftOf(await client.get(server.url('/a').replace('http://', 'http://user:pw@'), at(0))), 'is not an http(s) URL without credentials');
  t.is(leftOf(await client.get('not a uri', at(0))), 'is not a URL');
});
