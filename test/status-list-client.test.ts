// The verifier's Status List Token client on its own: one fetch in flight per uri however many ask,
// a token held for its ttl (from the fetch), never past its exp nor past the configured cap, memory
// bounded over all lists, failures never held, and oversized answers refused. Time is the `now`
// each call passes, so nothing here waits on a clock. Lists in CWT form are read as such.
import test from 'ava';
import { KeyObject } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { decode as cborDecode, encode as cborEncode, Tag } from 'cbor2';
import { isLeft } from 'fp-ts/lib/Either.js';
import { createStatusListClient, type StatusListClientOptions } from '../src/verification/status/statusListClient.js';
import { CWT_CLAIM, decompressList, statusAt } from '../src/statusList/statusList.js';
import { decodeCbor } from '../src/mdoc/cbor.js';
import { HEADER_TYP, parseCoseSign1 } from '../src/mdoc/cose.js';
import { verifyStatusListCwt } from '../src/verification/status/statusListToken.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import { createTestIssuer, type TestIssuer } from './support/credentials.js';
import { leftOf, rightOf } from './support/either.js';
import { cwtClaims, packLst, signStatusList, signStatusListCwt, startStatusListServer, type StatusListCwtOptions, type StatusListServer } from './support/statusLists.js';
import { loopbackEgress } from './support/egress.js';

const trust = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 }) });

const clientWith = (overrides: Partial<StatusListClientOptions> = {}) =>
  createStatusListClient({ fetch: { egress: loopbackEgress, timeoutMs: 2000, maxBytes: 1 << 20 }, trust, cacheMaxSeconds: 300, cacheMaxBytes: 1 << 24, ...overrides });

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
  const client = clientWith({ fetch: { egress: loopbackEgress, timeoutMs: 2000, maxBytes: 4096 } });
  t.is(leftOf(await client.get(server.url('/big'), at(0))), 'response larger than 4096 bytes');
  t.is(leftOf(await client.get(server.url('/bomb'), new Date())), 'status_list.lst decompresses to more than 4096 bytes');
});

test('a uri that is not http(s), or carries credentials, is not fetched', async (t) => {
  const client = clientWith();
  t.is(leftOf(await client.get('file:///etc/passwd', at(0))), 'is not an http(s) URL without credentials');
  t.is(leftOf(await client.get(server.url('/a').replace('http://', 'http://user:pw@'), at(0))), 'is not an http(s) URL without credentials');
  t.is(leftOf(await client.get('not a uri', at(0))), 'is not a URL');
});

const cwtSigner = () => ({ privateKey: KeyObject.from(issuer.leaf.keys.privateKey), x5c: issuer.x5c });

const CWT = 'application/statuslist+cwt';

// The CWT form (section 5.2): CWTs made by the test-side signer (cbor2 and node:crypto, none of
// src/mdoc) are read by their Content-Type, verified by their x5chain leaf and read; each check
// fails closed.

/** Serves at `path` a CWT of a 2-bit list of 16 whose entry 1 is INVALID; `overrides` change it. */
const serveCwt = (path: string, overrides: Partial<StatusListCwtOptions> = {}, contentType = CWT) =>
  server.serve(path, { status: 200, contentType, body: signStatusListCwt(cwtSigner(), { sub: server.url(path), lst: packLst(2, 16, { 1: 1 }), bits: 2, ...overrides }) });

test('a CWT answered as application/statuslist+cwt is verified and read; the Accept names the preferred form first', async (t) => {
  serveCwt('/cwt');
  const list = rightOf(await clientWith().get(server.url('/cwt'), new Date(), 'cwt'));
  t.is(server.accept('/cwt'), 'application/statuslist+cwt, application/statuslist+jwt;q=0.9');
  t.is(statusAt(list.list, 0), 0);
  t.is(statusAt(list.list, 1), 1);
  t.is(list.ttl, 300);
  t.is(list.chain[0]!.serialNumber, issuer.leaf.certificate.serialNumber);
  // A parameter on the Content-Type does not change the form.
  serveCwt('/cwt-charset', {}, `${CWT}; charset=binary`);
  t.is(statusAt(rightOf(await clientWith().get(server.url('/cwt-charset'), new Date(), 'cwt')).list, 1), 1);
});

test('forged or unusable CWTs fail closed: wrong signer, wrong sub, expired, tampered payload, unknown or missing typ, no iat, bad ttl, lst not bytes, served as a JWT', async (t) => {
  const other = await createTestIssuer();
  const now = Math.floor(Date.now() / 1000);
  server.serve('/wrong-signer', {
    status: 200,
    contentType: CWT,
    // Signed by another key, carrying the issuer's chain.
    body: signStatusListCwt({ privateKey: KeyObject.from(other.leaf.keys.privateKey), x5c: issuer.x5c }, { sub: server.url('/wrong-signer'), lst: packLst(2, 16), bits: 2 }),
  });
  serveCwt('/wrong-sub', { sub: server.url('/elsewhere') });
  serveCwt('/expired', { iat: now - 7200, exp: now - 60 });
  serveCwt('/typ', { typ: 'application/statuslist+jwt' });
  serveCwt('/no-typ', { typ: null });
  serveCwt('/no-iat', { iat: null });
  serveCwt('/bad-ttl', { ttl: -1 });
  // A CWT whose payload was changed after signing: entry 1 VALID instead of INVALID.
  const honest = cborDecode(signStatusListCwt(cwtSigner(), { sub: server.url('/tampered'), lst: packLst(2, 16, { 1: 1 }), bits: 2 }), { preferMap: true }) as Tag;
  const parts = honest.contents as unknown[];
  parts[2] = cborEncode(cwtClaims({ sub: server.url('/tampered'), lst: packLst(2, 16), bits: 2 }));
  server.serve('/tampered', { status: 200, contentType: CWT, body: cborEncode(new Tag(18, parts)) });
  // lst as base64url text (the JWT's form) inside a CWT, signed.
  const textLst = cwtClaims({ sub: server.url('/text-lst'), lst: packLst(2, 16), bits: 2 });
  textLst.set(65533, new Map<string, unknown>([['bits', 2], ['lst', packLst(2, 16)]]));
  server.serve('/text-lst', { status: 200, contentType: CWT, body: signStatusListCwt(cwtSigner(), { sub: '', lst: '' }, cborEncode(textLst)) });
  serveCwt('/as-jwt', {}, 'application/statuslist+jwt');
  server.serve('/bad-cbor', { status: 200, contentType: CWT, body: new Uint8Array([0xd2, 0x84, 0x40]) });
  const expected: Record<string, RegExp> = {
    '/wrong-signer': /^signature does not verify with its x5chain leaf certificate key$/,
    '/wrong-sub': /^sub is not the uri the credential names$/,
    '/expired': /^expired at /,
    '/typ': /^typ is "application\/statuslist\+jwt", expected "application\/statuslist\+cwt"/,
    '/no-typ': /^typ is null/,
    '/no-iat': /^has no iat$/,
    '/bad-ttl': /^ttl is not a positive number$/,
    '/tampered': /^signature does not verify/,
    '/text-lst': /^status_list\.lst is not a byte string$/,
    '/as-jwt': /^is not a JWS$/,
    '/bad-cbor': /^CWT is not one well-formed CBOR data item$/,
  };
  for (const [path, reason] of Object.entries(expected)) t.regex(leftOf(await clientWith().get(server.url(path), new Date(), 'cwt')), reason, path);
});

test('a CWT signed by a chain the trust rules refuse fails like a JWT from it', async (t) => {
  const expired = await createTestIssuer({ leaf: { notBefore: new Date(Date.now() - 7_200_000), notAfter: new Date(Date.now() - 60_000) } });
  server.serve('/expired-chain', {
    status: 200,
    contentType: CWT,
    body: signStatusListCwt({ privateKey: KeyObject.from(expired.leaf.keys.privateKey), x5c: expired.x5c }, { sub: server.url('/expired-chain'), lst: packLst(2, 16), bits: 2 }),
  });
  t.regex(leftOf(await clientWith().get(server.url('/expired-chain'), new Date(), 'cwt')), /^signing certificate: /);
});

// draft-ietf-oauth-status-list, section 5.2: the non-normative Status List Token in CWT format, in
// hex. It is signed with a key named by `kid` only (no x5chain, no key given), so it cannot verify
// here: our verifier refuses it, and its payload decodes with our CBOR and COSE code to the list
// the draft's JWT example carries (statuses 1 0 0 1 1 1 0 1, 1 1 0 0 0 1 0 1).
const DRAFT_CWT_EXAMPLE =
  'd2845820a2012610781a6170706c69636174696f6e2f7374617475736c6973742b637774a1044231325850a502782168747470733a2f2f6578616d706c652e636f6d2f' +
  '7374617475736c697374732f31061a648c5bea041a8898dfea19fffe19a8c019fffda2646269747301636c73744a78dadbb918000217015d584093fa4d01032b18c35e2fe1' +
  '101b77fd6cc9440022caa4694450c4e4e9feab4e99d1fa6d9772ce2bf3a12e0323ded7c982c5e101a5e67f0cbc1e2b6f57ce99c279';

test('the draft\'s CWT example: refused (kid only, no x5chain); its payload decodes to the draft\'s list', (t) => {
  const bytes = new Uint8Array(Buffer.from(DRAFT_CWT_EXAMPLE, 'hex'));
  t.is(
    leftOf(verifyStatusListCwt(bytes, { uri: 'https://example.com/statuslists/1', now: new Date('2023-06-17T00:00:00Z'), maxBytes: 1024 })),
    'is not verifiable: CWT x5chain header missing or not one or more DER certificates',
  );
  const sign1 = rightOf(parseCoseSign1(rightOf(decodeCbor(bytes)), 'CWT'));
  t.is(sign1.protectedHeader.get(HEADER_TYP), 'application/statuslist+cwt');
  const claims = rightOf(decodeCbor(sign1.payload!)) as Map<number, unknown>;
  t.is(claims.get(CWT_CLAIM.sub), 'https://example.com/statuslists/1');
  t.is(claims.get(CWT_CLAIM.iat), 1686920170);
  t.is(claims.get(CWT_CLAIM.exp), 2291720170);
  t.is(claims.get(CWT_CLAIM.ttl), 43200);
  const statusList = claims.get(CWT_CLAIM.statusList) as Map<string, unknown>;
  const list = rightOf(decompressList(statusList.get('lst') as Uint8Array, statusList.get('bits'), 1024));
  t.deepEqual(Array.from({ length: 16 }, (_, idx) => statusAt(list, idx)), [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]);
});
