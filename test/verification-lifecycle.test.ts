// A session's life beyond the happy path: races between the wallet and the expiry timer,
// concurrent fetches, a restart between fetch and answer, crypto-shredding of its data, and the
// field presence rules of the terminal events.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { presentationStream, type PresentationTerminalEvent } from '../streams/presentation.js';
import { presentationCallback } from '../src/callbacks/presentationCallback.js';
import type { DataKey } from '../src/crypto/dataKeys.js';
import { open, seal } from '../src/crypto/seal.js';
import type { EventStore, Json } from '../src/eventstore/port.js';
import { credentialStatusCheckerFromConfig } from '../src/verification/status/statusCheck.js';
import { trustVerifierFromConfig } from '../src/trust/issuerTrust.js';
import { createPresentationVerifier } from '../src/verification/formats/registry.js';
import { expired, fulfilled, processingFailed, rejected, verificationFailed } from './support/presentationOutcomes.js';
import { expirePresentation } from '../src/verification/sessionEnd.js';
import { receiveResponse } from '../src/verification/response/route.js';
import { loadVerifier } from '../src/verification/feature.js';
import { silentLogger } from '../src/log.js';
import { TEST_WEBHOOK_SECRET } from './support/receiver.js';
import { startTestService } from './support/service.js';
import { pidQuery, startVerificationHarness } from './support/wallet/connector.js';
import { answer, fetchAuthorizationRequest, postResponse } from './support/wallet/presentation.js';
import { buildVpToken, encryptResponse } from '../wallet/presentation.js';

const eventTypes = async (store: EventStore, state: string): Promise<string[]> => {
  const read = await store.readStream(presentationStream(state));
  return read._tag === 'Found' ? read.events.map((e) => e.type) : [];
};

const until = async (check: () => Promise<boolean>, attempts = 200): Promise<boolean> => {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
};

test('a wallet answering while the timer fires: exactly one terminal event', async (t) => {
  // The scheduler is slowed down so the test fires the timer itself, at the same moment as the wallets.
  const h = await startVerificationHarness({ PRESENTATION_EXPIRY_INTERVAL_MS: '3600000' });
  try {
    const { service } = h.service;
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery(), expires_in: 30 });
    const vpToken = await buildVpToken(request, { pid: { credential: await h.pid(), holder: h.holder } });
    const jwe = await encryptResponse(request, { vp_token: vpToken, state: created.state });
    const deps = { store: service.store, dataKeys: service.context.dataKeys, verifiers: { deployment: await loadVerifier(service.context) }, log: silentLogger };
    const trust = trustVerifierFromConfig(service.context.config);
    const status = credentialStatusCheckerFromConfig(service.context.config, trust);
    const verify = createPresentationVerifier(trust, status, silentLogger);
    const wallet = { ...deps, verify };
    const read = await service.store.readStream(presentationStream(created.state));
    const expiresAt = read._tag === 'Found' ? Date.parse((read.events[0]!.data as { expiresAt: string }).expiresAt) : 0;
    // Both sides judge the same instant: the expiry moment itself, which the wallet must lose.
    const at = new Date(expiresAt);
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => receiveResponse(wallet, created.state, { kind: 'response', jwe }, { actor: 'wallet' }, new Date(expiresAt - 1))),
      ...Array.from({ length: 4 }, () => expirePresentation(deps, created.state, { actor: 'scheduler' }, at)),
    ]);
    const types = await eventTypes(service.store, created.state);
    const terminal = types.filter((type) => type !== 'PresentationRequested' && type !== 'PresentationRequestFetched');
    t.is(terminal.length, 1);
    const walletWon = terminal[0] === 'PresentationFulfilled';
    const replies = results.slice(0, 4) as { status: number }[];
    t.is(replies.filter((r) => r.status === 200).length, walletWon ? 1 : 0);
    t.is((results.slice(4) as boolean[]).filter(Boolean).length, walletWon ? 0 : 1);
  } finally {
    await h.close();
  }
});

test('concurrent first fetches of one request agree on one nonce and key, recorded once', async (t) => {
  const h = await startVerificationHarness();
  try {
    const created = await h.request({ dcql_query: pidQuery() });
    const requests = await Promise.all(
      Array.from({ length: 8 }, () => fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri)),
    );
    t.is(new Set(requests.map((r) => r.nonce)).size, 1);
    t.is(new Set(requests.map((r) => r.encryptionKey.kid)).size, 1);
    const types = await eventTypes(h.service.service.store, created.state);
    t.is(types.filter((type) => type === 'PresentationRequestFetched').length, 1);
    // Any of them can be answered; the answer is bound to the request's nonce.
    t.is((await answer(h.endpoints, requests[3]!, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
    t.like(await h.callback(created.state), { status: 'FULFILLED' });
  } finally {
    await h.close();
  }
});

test('a request fetched before a restart is answered after it: the key and nonce live in the events', async (t) => {
  const h = await startVerificationHarness();
  const dataDir = h.service.dataDir;
  let second: Awaited<ReturnType<typeof startTestService>> | undefined;
  try {
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
    await h.service.stop();
    second = await startTestService({ dataDir, env: { CALLBACK_URL: h.receiver.url, CALLBACK_SECRET: TEST_WEBHOOK_SECRET } });
    const endpoints = { publicUrl: second.config.publicUrl, listenUrl: second.service.publicListenUrl };
    t.is((await answer(endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
    t.like(await h.callback(created.state), { status: 'FULFILLED' });
  } finally {
    await second?.stop();
    await h.close();
  }
});

test('personal data is sealed in the stream and gone with the session key', async (t) => {
  const h = await startVerificationHarness();
  try {
    const { store, context } = h.service.service;
    const { created, request } = await h.requestAndFetch({
      dcql_query: pidQuery(),
      transaction_data: [{ type: 'payment', credential_ids: ['pid'], payee: 'Payee Name' }],
    });
    t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
    t.like(await h.callback(created.state), { status: 'FULFILLED' });
    const read = await store.readStream(presentationStream(created.state));
    const recorded = JSON.stringify(read._tag === 'Found' ? read.events.map((e) => [e.data, e.metadata]) : []);
    for (const secret of ['Erika', 'Mustermann', 'Payee Name', 'given_name', '"d"']) t.false(recorded.includes(secret), secret);
    // The callback subscriber destroys the key once the callback is delivered.
    t.true(await until(async () => (await context.dataKeys.find(created.state)) === undefined));
    // Other outcomes need nothing sealed for the callback: the key goes at once.
    const declined = await h.requestAndFetch({ dcql_query: pidQuery() });
    await postResponse(h.endpoints, declined.request, { error: 'access_denied', state: declined.created.state });
    t.is(await context.dataKeys.find(declined.created.state), undefined);
  } finally {
    await h.close();
  }
});

test('terminal events translate to callback requests following the spec field presence rules', async (t) => {
  const secret = randomBytes(32);
  const key: DataKey = {
    seal: (value, purpose) => seal(secret, Buffer.from(JSON.stringify(value)), purpose),
    open: (sealed, purpose) => JSON.parse(open(secret, sealed, purpose).toString()) as Json,
  };
  const base = { state: 's', tenantId: 'tenant', at: new Date() };
  const same = { kid: 'k', flowType: 'same-device' as const };
  const cross = { kid: 'k', flowType: 'cross-device' as const };
  const request = (event: PresentationTerminalEvent) => presentationCallback(event);
  const body = (event: PresentationTerminalEvent) => request(event)?.body;
  const verified = { credentials: {}, credentialsRaw: {} };
  t.deepEqual(Object.keys(body(fulfilled(base, same, verified, key))!).sort(), ['responseCode', 'state', 'status']);
  t.deepEqual(Object.keys(body(fulfilled(base, cross, verified, key))!).sort(), ['state', 'status']);
  t.truthy(request(fulfilled(base, cross, verified, key))?.sealed);
  const trust = { reason: 'issuer not trusted', trustEnforcement: true };
  const invalid = { reason: 'bad signature', trustEnforcement: false };
  t.deepEqual(Object.keys(body(verificationFailed(base, same, trust))!).sort(), ['errorDetails', 'responseCode', 'state', 'status']);
  t.deepEqual(Object.keys(body(verificationFailed(base, cross, trust))!).sort(), ['errorDetails', 'state', 'status']);
  t.deepEqual(Object.keys(body(verificationFailed(base, same, invalid))!).sort(), ['errorDetails', 'state', 'status']);
  t.deepEqual(body(rejected(base, 'access_denied')), { status: 'REJECTED', state: 's', errorDetails: 'access_denied' });
  t.deepEqual(body(expired(base)), { status: 'EXPIRED', state: 's' });
  t.deepEqual(body(processingFailed(base, 'x')), { status: 'PROCESSING_ERROR', state: 's', errorDetails: 'x' });
  for (const event of [rejected(base, 'e'), expired(base), processingFailed(base, 'x'), verificationFailed(base, same, trust)]) {
    t.is(request(event)?.sealed, undefined);
  }
});
