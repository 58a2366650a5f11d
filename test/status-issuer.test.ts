// The issuer's side of credential status end to end: every issued credential carries a Status List
// entry, the integrator revokes, suspends and reinstates through the management API, each change
// is a callback of its own, and the Status List Token served under PUBLIC_URL shows it at once.
// Refusals are problems that change nothing.
import test, { type ExecutionContext } from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { loadConfig } from '../src/config/config.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { credentialStatusStream } from '../streams/credentialStatus.js';
import { startReceiver, TEST_WEBHOOK_SECRET, type Receiver } from './support/receiver.js';
import { startTestService, type TestService } from './support/service.js';
import { jwtHeader, jwtPayload, readLst, readStatusListCwt, statusInToken } from './support/statusLists.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, verifyIssuedCredential, waitForOffer } from './support/wallet/issuanceChecks.js';

let service: TestService;
let receiver: Receiver;

test.before(async () => {
  receiver = await startReceiver();
  service = await startTestService({ env: { CALLBACK_URL: receiver.url, CALLBACK_SECRET: TEST_WEBHOOK_SECRET, STATUS_LIST_TTL_SECONDS: '30' } });
});

test.after.always(async () => {
  await service?.cleanup();
  await receiver?.close();
});

const MEMBER = { credential_configuration_id: 'membership', claims: { member_number: 'M-1', given_name: 'Erika', family_name: 'Mustermann' } };

interface Issued {
  readonly offerId: string;
  readonly credential: string;
  readonly reference: { readonly idx: number; readonly uri: string };
}

/** Issues a membership credential and waits until the offer is ISSUED and its claims purged. */
const issue = async (s: TestService = service): Promise<Issued> => {
  const created = await createOffer(s, MEMBER);
  const wallet = await IssuanceWallet.create(s.config.publicUrl, s.service.publicListenUrl);
  const credential = await wallet.receive(created.credential_offer_uri);
  await waitForOffer(s, created.offer_id, (b) => b.status === 'ISSUED' && b.claims_purged);
  const payload = jwtPayload(credential.split('~')[0]!);
  const reference = (payload['status'] as { status_list: { idx: number; uri: string } }).status_list;
  return { offerId: created.offer_id, credential, reference };
};

interface Answer {
  readonly status: number;
  readonly etag: string | null;
  readonly type: string | null;
  readonly body: Record<string, unknown>;
}

const answerOf = async (response: Response): Promise<Answer> => ({
  status: response.status,
  etag: response.headers.get('etag'),
  type: response.headers.get('content-type'),
  body: (await response.json()) as Record<string, unknown>,
});

const setStatus = async (offerId: string, body: unknown, headers: Record<string, string> = {}, key?: string): Promise<Answer> =>
  answerOf(
    await service.management(`/offers/${offerId}/credential-status`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(key ? { key } : {}),
    }),
  );

const getStatus = async (offerId: string, key?: string): Promise<Answer> =>
  answerOf(await service.management(`/offers/${offerId}/credential-status`, key ? { key } : {}));

/** The served Status List Token at `uri`, through the public listener. */
const served = async (uri: string, headers: Record<string, string> = {}): Promise<Response> => {
  if (!uri.startsWith(`${service.config.publicUrl}/`)) throw new Error(`${uri} is not under PUBLIC_URL`);
  return service.wallet(uri.slice(service.config.publicUrl.length), { headers });
};
/** The headers every served token has, checked; its ETag. */
const servedHeaders = (t: ExecutionContext, response: Response, mediaType: string): string => {
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), mediaType);
  t.is(response.headers.get('vary'), 'Accept');
  t.is(response.headers.get('cache-control'), 'max-age=30');
  t.is(response.headers.get('access-control-allow-origin'), '*');
  const etag = response.headers.get('etag') ?? '';
  t.regex(etag, /^"[A-Za-z0-9_-]{43}"$/);
  return etag;
};

const servedStatus = async (reference: Issued['reference']): Promise<number> => statusInToken(await (await served(reference.uri)).text(), reference.idx);

const statusEvents = async (offerId: string): Promise<string[]> => {
  const read = await service.service.store.readStream(credentialStatusStream(offerId));
  return read._tag === 'Found' ? read.events.map((e) => e.type) : [];
};

/** Callback bodies of status changes for an offer, in arrival order. */
const statusCallbacks = (offerId: string) =>
  receiver.received
    .map((r) => JSON.parse(r.body) as Record<string, string>)
    .filter((b) => b['offerId'] === offerId && ['REVOKED', 'SUSPENDED', 'REINSTATED'].includes(b['status']!));

test('an issued credential carries a random Status List entry under PUBLIC_URL; GET answers it as valid', async (t) => {
  const issued = await issue();
  t.regex(issued.reference.uri, new RegExp(`^${service.config.publicUrl}/status-lists/\\d+$`));
  t.true(Number.isInteger(issued.reference.idx) && issued.reference.idx >= 0 && issued.reference.idx < 131072);
  const status = await getStatus(issued.offerId);
  t.is(status.status, 200);
  t.deepEqual(status.body, { status: 'valid', statusReferences: [{ uri: issued.reference.uri, idx: issued.reference.idx }] });
  t.is(status.etag, '"0"');
  // Claims are purged at the end of the flow; the entry is kept.
  t.deepEqual(await statusEvents(issued.offerId), ['CredentialStatusAllocated']);
  t.is(await servedStatus(issued.reference), 0);
});

// Serial, so it runs before the others: their status changes in the same list would move its ETag.
test.serial('the served Status List Token: typ, x5c of the credential, sub = uri, iat, exp, ttl, 2 bits, its media type, CORS and ETag', async (t) => {
  const issued = await issue();
  const response = await served(issued.reference.uri, { Accept: 'application/statuslist+jwt' });
  const etag = servedHeaders(t, response, 'application/statuslist+jwt');
  const jwt = await response.text();
  const header = jwtHeader(jwt);
  t.is(header['typ'], 'statuslist+jwt');
  t.is(header['alg'], 'ES256');
  t.deepEqual(header['x5c'], jwtHeader(issued.credential.split('~')[0]!)['x5c']);
  const payload = jwtPayload(jwt);
  t.is(payload['sub'], issued.reference.uri);
  t.is(payload['iss'], service.config.publicUrl);
  t.is(payload['ttl'], 30);
  t.is(payload['exp'], (payload['iat'] as number) + 86_400);
  t.like(payload['status_list'], { bits: 2 });

  const again = await served(issued.reference.uri, { 'If-None-Match': etag });
  t.is(again.status, 304);
  t.is(again.headers.get('etag'), etag);
  t.is(await again.text(), '');
  t.is((await served(`${service.config.publicUrl}/status-lists/999`)).status, 404);
  t.is((await served(`${service.config.publicUrl}/status-lists/01`)).status, 404);
  t.is((await served(`${service.config.publicUrl}/status-lists/x`)).status, 404);
});

test.serial('the CWT form, for Accept: application/statuslist+cwt: typ, ES256, x5chain of the credential, sub, iat, exp, ttl, 2 bits as bytes; its own ETag; JWT otherwise', async (t) => {
  const issued = await issue();
  const response = await served(issued.reference.uri, { Accept: 'application/statuslist+cwt' });
  const etag = servedHeaders(t, response, 'application/statuslist+cwt');
  // Read by cbor2 and node:crypto alone, as an independent verifier would.
  const cwt = readStatusListCwt(new Uint8Array(await response.arrayBuffer()));
  t.true(cwt.signatureValid);
  t.is(cwt.protectedHeader.get(1), -7);
  t.is(cwt.protectedHeader.get(16), 'application/statuslist+cwt');
  t.deepEqual(cwt.x5chain.map((der) => Buffer.from(der).toString('base64')), jwtHeader(issued.credential.split('~')[0]!)['x5c']);
  t.is(cwt.claims.get(2), issued.reference.uri);
  t.is(cwt.claims.get(65534), 30);
  t.is(cwt.claims.get(4), (cwt.claims.get(6) as number) + 86_400);
  const statusList = cwt.claims.get(65533) as Map<string, unknown>;
  t.is(statusList.get('bits'), 2);
  const lst = statusList.get('lst') as Uint8Array;
  t.true(lst instanceof Uint8Array);
  t.is(readLst(Buffer.from(lst).toString('base64url'), 2, issued.reference.idx), 0);

  // Conditional requests per representation: the CWT's tag matches the CWT only.
  const again = await served(issued.reference.uri, { Accept: 'application/statuslist+cwt', 'If-None-Match': etag });
  t.is(again.status, 304);
  const jwt = await served(issued.reference.uri, { 'If-None-Match': etag });
  t.is(jwt.status, 200);
  t.is(jwt.headers.get('content-type'), 'application/statuslist+jwt');
  t.not(jwt.headers.get('etag'), etag);
  // JWT is the default: no Accept, one naming neither, or the JWT preferred.
  for (const accept of ['text/html', '*/*', 'application/statuslist+jwt, application/statuslist+cwt;q=0.9']) {
    t.is((await served(issued.reference.uri, { Accept: accept })).headers.get('content-type'), 'application/statuslist+jwt', accept);
  }
  t.is((await served(issued.reference.uri, { Accept: 'application/statuslist+cwt, application/statuslist+jwt;q=0.9' })).headers.get('content-type'), 'application/statuslist+cwt');

  // A revocation shows in the very next CWT too.
  t.is((await setStatus(issued.offerId, { status: 'revoked' })).status, 200);
  const revoked = readStatusListCwt(new Uint8Array(await (await served(issued.reference.uri, { Accept: 'application/statuslist+cwt' })).arrayBuffer()));
  const revokedLst = (revoked.claims.get(65533) as Map<string, unknown>).get('lst') as Uint8Array;
  t.is(readLst(Buffer.from(revokedLst).toString('base64url'), 2, issued.reference.idx), 1);
});

test('revoke: 200 with the new status, the served list says INVALID at once, an independent verifier refuses it, a REVOKED callback', async (t) => {
  const issued = await issue();
  await verifyIssuedCredential(service, issued.credential);
  const before = await served(issued.reference.uri);
  const etagBefore = before.headers.get('etag');
  const revoked = await setStatus(issued.offerId, { status: 'revoked' });
  t.is(revoked.status, 200);
  t.deepEqual(revoked.body, { status: 'revoked', statusReferences: [{ uri: issued.reference.uri, idx: issued.reference.idx }] });
  t.is(revoked.etag, '"1"');
  // The change is in the next token served, and a verifier holding the old ETag gets it too.
  const after = await served(issued.reference.uri, { 'If-None-Match': etagBefore! });
  t.is(after.status, 200);
  t.is(statusInToken(await after.text(), issued.reference.idx), 1);
  await t.throwsAsync(verifyIssuedCredential(service, issued.credential), { message: /Status is not valid/ });
  t.like(await getStatus(issued.offerId), { status: 200, etag: '"1"', body: { status: 'revoked' } });

  t.true(await receiver.until(() => statusCallbacks(issued.offerId).length === 1));
  const [callback] = statusCallbacks(issued.offerId);
  t.is(callback!['status'], 'REVOKED');
  t.not(callback!['eventId'], issued.offerId);
  t.regex(callback!['eventId']!, /^[0-9a-f-]{36}$/);
  t.deepEqual(Object.keys(callback!).sort(), ['eventId', 'offerId', 'status']);
});

test('suspend, reinstate, suspend again: the list follows, and three callbacks each with its own eventId', async (t) => {
  const issued = await issue();
  const steps: [string, number][] = [['suspended', 2], ['valid', 0], ['suspended', 2]];
  for (const [status, listed] of steps) {
    const answer = await setStatus(issued.offerId, { status });
    t.is(answer.status, 200, status);
    t.is(answer.body['status'], status);
    t.is(await servedStatus(issued.reference), listed, status);
  }
  t.deepEqual(await statusEvents(issued.offerId), ['CredentialStatusAllocated', 'CredentialSuspended', 'CredentialReinstated', 'CredentialSuspended']);
  t.true(await receiver.until(() => statusCallbacks(issued.offerId).length === 3));
  const callbacks = statusCallbacks(issued.offerId);
  t.deepEqual(callbacks.map((c) => c['status']).sort(), ['REINSTATED', 'SUSPENDED', 'SUSPENDED']);
  t.is(new Set(callbacks.map((c) => c['eventId'])).size, 3);
  t.is(new Set(receiver.received.filter((r) => callbacks.some((c) => r.body.includes(c['eventId']!))).map((r) => r.headers['webhook-id'])).size, 3);
});

test('revocation is final: valid or suspended afterwards is a 409 that records nothing; revoked again is 200 and records nothing', async (t) => {
  const issued = await issue();
  t.is((await setStatus(issued.offerId, { status: 'revoked' })).status, 200);
  for (const status of ['valid', 'suspended']) {
    const refused = await setStatus(issued.offerId, { status });
    t.is(refused.status, 409, status);
    t.is(refused.type, 'application/problem+json');
    t.like(refused.body, { type: '/problems/conflict', status: 409 });
    t.regex(refused.body['detail'] as string, /revocation is final/);
  }
  const again = await setStatus(issued.offerId, { status: 'revoked' });
  t.like(again, { status: 200, etag: '"1"', body: { status: 'revoked' } });
  t.deepEqual(await statusEvents(issued.offerId), ['CredentialStatusAllocated', 'CredentialRevoked']);
  t.is(await servedStatus(issued.reference), 1);
});

test('bad input is a problem and changes nothing: unknown offer, another tenant\'s, nothing issued yet, bad body, If-Match', async (t) => {
  const issued = await issue();
  const unknown = await setStatus('no-such-offer', { status: 'revoked' });
  t.like(unknown, { status: 404, type: 'application/problem+json', body: { type: '/problems/not-found' } });
  t.is((await getStatus('no-such-offer')).status, 404);

  // Another tenant cannot see or change the offer.
  const store = service.service.store;
  const tenant = await createTenant(store, { name: 'other' }, { actor: 'test' });
  if (!isRight(tenant)) throw new Error('tenant');
  const key = await createApiKey(store, { tenantId: tenant.right.tenantId, scopes: ['connector'], expiration: null }, { actor: 'test' });
  if (!isRight(key)) throw new Error('key');
  await service.service.runner.waitFor(key.right.position, 5000);
  t.is((await setStatus(issued.offerId, { status: 'revoked' }, {}, key.right.secret)).status, 404);
  t.is((await getStatus(issued.offerId, key.right.secret)).status, 404);

  // An offer whose credential has not been issued yet.
  const pending = await createOffer(service, MEMBER);
  const early = await setStatus(pending.offer_id, { status: 'revoked' });
  t.like(early, { status: 409, body: { type: '/problems/conflict' } });
  t.regex(early.body['detail'] as string, /has been issued under this offer yet/);
  t.is((await getStatus(pending.offer_id)).status, 409);
  t.deepEqual(await statusEvents(pending.offer_id), []);

  const badStatus = await setStatus(issued.offerId, { status: 'deleted' });
  t.like(badStatus, { status: 400, body: { type: '/problems/invalid-request' } });
  t.deepEqual((badStatus.body['errors'] as { location: string }[]).map((e) => e.location), ['body.status']);
  t.is((await setStatus(issued.offerId, {})).status, 400);
  t.is((await setStatus(issued.offerId, '{"status":')).status, 400);
  const notJson = await service.management(`/offers/${issued.offerId}/credential-status`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'revoked' });
  t.is(notJson.status, 415);

  const stale = await setStatus(issued.offerId, { status: 'revoked' }, { 'If-Match': '"7"' });
  t.like(stale, { status: 412, body: { type: '/problems/precondition-failed' } });
  t.is((await setStatus(issued.offerId, { status: 'revoked' }, { 'If-Match': 'W/"0"' })).status, 412);
  t.is((await setStatus(issued.offerId, { status: 'revoked' }, { 'If-Match': 'nonsense' })).status, 400);
  const wrongMethod = await service.management(`/offers/${issued.offerId}/credential-status`, { method: 'DELETE' });
  t.is(wrongMethod.status, 405);
  t.deepEqual(wrongMethod.headers.get('allow')?.split(/,\s*/).sort(), ['GET', 'HEAD', 'PUT']);

  t.deepEqual(await statusEvents(issued.offerId), ['CredentialStatusAllocated']);
  t.is(await servedStatus(issued.reference), 0);
  t.like(await getStatus(issued.offerId), { status: 200, body: { status: 'valid' } });
  // And with the right etag it goes through.
  t.like(await setStatus(issued.offerId, { status: 'suspended' }, { 'If-Match': '"0"' }), { status: 200, etag: '"1"' });
});

test('concurrent revoke and suspend with one If-Match: exactly one wins that revision, the other is 412', async (t) => {
  const issued = await issue();
  const answers = await Promise.all(['revoked', 'suspended'].map((status) => setStatus(issued.offerId, { status }, { 'If-Match': '"0"' })));
  t.deepEqual(answers.map((a) => a.status).sort(), [200, 412]);
  const winner = answers.find((a) => a.status === 200)!.body['status'];
  const events = await statusEvents(issued.offerId);
  t.deepEqual(events, ['CredentialStatusAllocated', winner === 'revoked' ? 'CredentialRevoked' : 'CredentialSuspended']);
  t.is(await servedStatus(issued.reference), winner === 'revoked' ? 1 : 2);
});

test('concurrent revoke and suspend without If-Match: each revision has one winner and the credential ends revoked', async (t) => {
  const issued = await issue();
  const answers = await Promise.all(['revoked', 'suspended'].map((status) => setStatus(issued.offerId, { status })));
  const events = await statusEvents(issued.offerId);
  // Either the suspension came first and the revocation after it, or the revocation first and
  // the suspension was refused: never both at one revision, never a suspension after revocation.
  if (events.length === 3) {
    t.deepEqual(events, ['CredentialStatusAllocated', 'CredentialSuspended', 'CredentialRevoked']);
    t.deepEqual(answers.map((a) => a.status), [200, 200]);
  } else {
    t.deepEqual(events, ['CredentialStatusAllocated', 'CredentialRevoked']);
    t.deepEqual(answers.map((a) => a.status), [200, 409]);
  }
  t.like(await getStatus(issued.offerId), { body: { status: 'revoked' } });
  t.is(await servedStatus(issued.reference), 1);
});

test('a configuration with status_list: false issues credentials without a status claim, and they cannot be revoked', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'status-optout-'));
  const file = join(dir, 'configurations.json');
  await writeFile(
    file,
    JSON.stringify({
      credential_configurations: [
        { id: 'ticket', vct: 'urn:example:ticket:1', status_list: false, display: [{ lang: 'en', name: 'Ticket' }], claims: [{ path: ['seat'], mandatory: true, sd: 'never', display: [] }] },
      ],
    }),
  );
  const other = await startTestService({ env: { CREDENTIAL_CONFIGURATIONS: file } });
  try {
    const created = await createOffer(other, { credential_configuration_id: 'ticket', claims: { seat: '12A' } });
    const wallet = await IssuanceWallet.create(other.config.publicUrl, other.service.publicListenUrl);
    const credential = await wallet.receive(created.credential_offer_uri);
    t.false('status' in jwtPayload(credential.split('~')[0]!));
    await waitForOffer(other, created.offer_id, (b) => b.status === 'ISSUED');
    const response = await other.management(`/offers/${created.offer_id}/credential-status`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'revoked' }),
    });
    t.is(response.status, 409);
  } finally {
    await other.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
});

test('the status list variables are validated at start, each failure naming its variable', async (t) => {
  const bad = loadConfig({
    STATUS_LIST_SIZE: '12',
    STATUS_LIST_TTL_SECONDS: '0',
    STATUS_LIST_FAILURE_POLICY: 'ignore',
    STATUS_LIST_MAX_BYTES: '10',
    STATUS_LIST_CACHE_MAX_SECONDS: 'soon',
  });
  if (!isLeft(bad)) return t.fail('accepted');
  t.deepEqual(bad.left, [
    'STATUS_LIST_SIZE: expected a multiple of 8, 8-16777216, got "12"',
    'STATUS_LIST_TTL_SECONDS: expected an integer 1-86400, got "0"',
    'STATUS_LIST_FAILURE_POLICY: expected enforce or evaluate, got "ignore"',
    'STATUS_LIST_MAX_BYTES: expected an integer 1024-268435456, got "10"',
    'STATUS_LIST_CACHE_MAX_SECONDS: expected an integer 1-86400, got "soon"',
  ]);
  const dataDir = await mkdtemp(join(tmpdir(), 'status-config-'));
  try {
    await t.throwsAsync(startTestService({ dataDir, env: { STATUS_LIST_TTL_SECONDS: '60', STATUS_LIST_VALIDITY_SECONDS: '60' } }), {
      message: 'STATUS_LIST_VALIDITY_SECONDS (60) must exceed STATUS_LIST_TTL_SECONDS (60)',
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
