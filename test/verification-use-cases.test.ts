// The verification steps' use cases called directly, without HTTP: a real SQLite store in a
// temporary directory, real data keys, a real access certificate signing the request object, the
// test issuer's credentials checked by the real format registry with its CA as the trust anchor,
// and the wallet simulator's own presentation and encryption. The HTTP tests prove the wiring
// and the wire format; these prove each step's rules and refusals.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js';
import { decodeJwt, type JWK } from 'jose';
import { presentationStream } from '../streams/presentation.js';
import { x509HashClientId } from '../src/crypto/certificates.js';
import { dataKeys, type DataKeys } from '../src/crypto/dataKeys.js';
import { fileKek } from '../src/crypto/kek.js';
import { generateChain, signingIdentity } from '../src/crypto/signingIdentity.js';
import type { EventStore } from '../src/eventstore/port.js';
import { silentLogger } from '../src/log.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import type { Verifier } from '../src/verification/authorizationRequest.js';
import { tenantVerifiers, type Verifiers } from '../src/verification/verifiers.js';
import { createPresentationVerifier } from '../src/verification/formats/registry.js';
import { createPresentationBody, type CreatePresentationBody } from '../src/verification/createRequest/body.js';
import { initTransaction, type CreateRequestDeps, type InitiatedTransaction } from '../src/verification/createRequest/createRequest.js';
import { DcApiAnswerBody, postDcApiResponse } from '../src/verification/dcApi/dcApiResponse.js';
import type { DcApiRequest } from '../src/verification/dcApi/dcApiRequest.js';
import { getRequestObject } from '../src/verification/requestObject/requestObject.js';
import { postWalletResponse } from '../src/verification/response/response.js';
import type { WalletAnswer } from '../src/verification/response/walletAnswer.js';
import { createCredentialStatusChecker } from '../src/verification/status/statusCheck.js';
import { createStatusListClient } from '../src/verification/status/statusListClient.js';
import { createHolder, createTestIssuer, sd, type Holder, type IssuedCredential, type TestIssuer } from './support/credentials.js';
import { loopbackEgress } from './support/egress.js';
import { withStoreDir } from './support/readmodels.js';
import { buildVpToken, encryptResponse, type CredentialQuery } from '../wallet/presentation.js';

const VCT = 'urn:eudi:pid:1';
const TENANT = 'tenant-a';
const ORIGIN = 'https://shop.example';
const pidQuery = { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['given_name'] }] }] };

let issuer: TestIssuer;
let holder: Holder;
let pid: IssuedCredential;
let verifier: Verifier;

test.before(async () => {
  issuer = await createTestIssuer();
  holder = await createHolder();
  pid = await issuer.issue({ vct: VCT, holder, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') } });
  const access = await generateChain('verifier access certificate');
  verifier = {
    identity: await signingIdentity([access.leaf.certificate, access.ca.certificate], access.leaf.keys.privateKey),
    clientId: x509HashClientId(access.leaf.certificate),
    publicUrl: 'https://verifier.example',
  };
});

interface World {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  readonly deps: CreateRequestDeps & Parameters<typeof postWalletResponse>[0] & { readonly verifiers: Verifiers };
}

const withWorld = (body: (world: World) => Promise<void>) =>
  withStoreDir('verification-use-cases-', async (_dir, store) => {
    const keys = dataKeys(store, fileKek(randomBytes(32)));
    const trust = createTrustVerifier({ verifyTrustAnchor: true, anchors: [issuer.ca.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 }), policy: 'enforce' });
    // The credentials here carry no status reference, so no list is ever fetched.
    const status = createCredentialStatusChecker({
      policy: 'enforce',
      client: createStatusListClient({ fetch: { egress: loopbackEgress, timeoutMs: 1000, maxBytes: 1 << 20 }, trust, cacheMaxSeconds: 60, cacheMaxBytes: 1 << 20 }),
    });
    const deps = {
      store,
      dataKeys: keys,
      verifiers: tenantVerifiers(verifier, { tenantKeys: { active: async () => undefined }, verifierRegistrations: { of: () => undefined } }),
      verify: createPresentationVerifier(trust, status, silentLogger),
      log: silentLogger,
      bounds: { defaultSeconds: 300, minSeconds: 60, maxSeconds: 3600 },
      settingsOf: () => ({ defaultRedirectUri: undefined, presentationExpiresIn: 300 }),
      trustListUrls: () => undefined,
    };
    await body({ store, dataKeys: keys, deps });
  });

const bodyOf = (json: Record<string, unknown>): CreatePresentationBody => {
  const decoded = createPresentationBody({ defaultSeconds: 300, minSeconds: 60, maxSeconds: 3600 }).decode(json);
  if (isLeft(decoded)) throw new Error('the test body does not decode');
  return decoded.right;
};

const rightOf = <E, A>(result: Either<E, A>): A => {
  if (isLeft(result)) throw new Error(`expected a result, got ${JSON.stringify(result.left)}`);
  return result.right;
};

/** The DC API answer's body as its schema decodes it. */
const answerBody = (json: { origin: string; data: Record<string, unknown>; protocol?: string }): DcApiAnswerBody => rightOf(DcApiAnswerBody.decode(json));

const eventTypes = async (store: EventStore, state: string): Promise<string[]> => {
  const read = await store.readStream(presentationStream(state));
  return read._tag === 'Found' ? read.events.map((e) => e.type) : [];
};

const create = (world: World, json: Record<string, unknown>, now = new Date()) =>
  initTransaction(world.deps, { tenantId: TENANT, body: bodyOf(json), metadata: { actor: 'test' }, now });

/** The request object's parameters a wallet answers with, as the wallet simulator reads them. */
const walletRequest = (params: Record<string, unknown>, clientId: string) => {
  const metadata = params['client_metadata'] as { jwks: { keys: JWK[] } };
  return {
    clientId,
    nonce: params['nonce'] as string,
    transactionData: (params['transaction_data'] as string[] | undefined) ?? [],
    credentialQueries: (params['dcql_query'] as { credentials: CredentialQuery[] }).credentials,
    encryptionKey: metadata.jwks.keys[0]!,
  };
};

const fetchRequest = async (world: World, state: string, now = new Date()) => {
  const jwt = rightOf(await getRequestObject(world.deps, { state, flowType: 'cross-device', walletNonce: undefined, metadata: { actor: 'wallet' }, now }));
  return walletRequest(decodeJwt(jwt), verifier.clientId);
};

const respond = (world: World, state: string, answer: WalletAnswer, now = new Date()) =>
  postWalletResponse(world.deps, { state, answer, metadata: { actor: 'wallet' }, now });

test('initTransaction records the request, sealed, and hands back the two request URIs naming the verifier', async (t) => {
  await withWorld(async (world) => {
    const created: InitiatedTransaction = rightOf(await create(world, { dcql_query: pidQuery }));
    t.deepEqual(await eventTypes(world.store, created.state), ['PresentationRequested']);
    const read = await world.store.readStream(presentationStream(created.state));
    t.false(JSON.stringify(read._tag === 'Found' ? read.events.map((e) => e.data) : null).includes(VCT), 'the query is sealed, not in the event');
    const uri = new URL(created.requestUris!.cross_device_request_uri);
    t.is(uri.searchParams.get('client_id'), verifier.clientId);
    t.is(uri.searchParams.get('request_uri'), `${verifier.publicUrl}/oidc4vp/${created.state}/request?flow_type=cross-device`);
    t.is(created.dcApiRequest, undefined);
  });
});

test('initTransaction refuses transaction data naming no credential query, and records nothing', async (t) => {
  await withWorld(async (world) => {
    const refused = await create(world, { dcql_query: pidQuery, transaction_data: [{ type: 'payment', credential_ids: ['mdl'] }] });
    if (!isLeft(refused)) return t.fail('created');
    t.is(refused.left._tag, 'InvalidValues');
    t.is(refused.left.problems[0]?.location, 'body.transaction_data[0].credential_ids[0]');
    t.deepEqual(await world.store.readAll(), []);
  });
});

test('initTransaction for the DC API records the request at creation and returns it for the page, without request URIs', async (t) => {
  await withWorld(async (world) => {
    const created = rightOf(await create(world, { dcql_query: pidQuery, flow_type: 'dc_api', expected_origins: [ORIGIN], dc_api_signed: false }));
    t.is(created.requestUris, undefined);
    const request = created.dcApiRequest as DcApiRequest;
    t.is(request.protocol, 'openid4vp-v1-unsigned');
    t.is(request.data['response_mode'], 'dc_api.jwt');
    t.deepEqual(await eventTypes(world.store, created.state), ['PresentationRequested']);
  });
});

test('getRequestObject records the request once; a later fetch is signed from the same nonce and records nothing', async (t) => {
  await withWorld(async (world) => {
    const { state } = rightOf(await create(world, { dcql_query: pidQuery }));
    const first = await fetchRequest(world, state);
    const again = await fetchRequest(world, state);
    t.is(again.nonce, first.nonce);
    t.deepEqual(await eventTypes(world.store, state), ['PresentationRequested', 'PresentationRequestFetched']);
  });
});

test('getRequestObject refuses an unknown state, a DC API session and an expired session', async (t) => {
  await withWorld(async (world) => {
    const fetch = async (state: string, now = new Date()) =>
      getRequestObject(world.deps, { state, flowType: 'same-device', walletNonce: undefined, metadata: { actor: 'wallet' }, now });
    const unknown = await fetch('x'.repeat(43));
    t.true(isLeft(unknown) && unknown.left._tag === 'UnknownSession');
    const dcApi = rightOf(await create(world, { dcql_query: pidQuery, flow_type: 'dc_api', expected_origins: [ORIGIN] }));
    const otherChannel = await fetch(dcApi.state);
    t.true(isLeft(otherChannel) && otherChannel.left._tag === 'OtherChannel');
    const byUri = rightOf(await create(world, { dcql_query: pidQuery, expires_in: 60 }));
    const late = await fetch(byUri.state, new Date(byUri.expiresAt.getTime() + 1));
    t.true(isLeft(late) && late.left._tag === 'SessionExpired');
    t.deepEqual(await eventTypes(world.store, byUri.state), ['PresentationRequested']);
  });
});

test('postWalletResponse with a presentation that verifies records FULFILLED and keeps the data key for the callback', async (t) => {
  await withWorld(async (world) => {
    const { state } = rightOf(await create(world, { dcql_query: pidQuery }));
    const request = await fetchRequest(world, state);
    const vpToken = await buildVpToken(request, { pid: { credential: pid, holder } });
    const recorded = rightOf(await respond(world, state, { kind: 'response', jwe: await encryptResponse(request, { vp_token: vpToken, state }) }));
    t.is(recorded.event.type, 'PresentationFulfilled');
    t.not(await world.dataKeys.find(state), undefined);
    const second = await respond(world, state, { kind: 'error', error: 'access_denied', state });
    t.true(isLeft(second) && second.left._tag === 'SessionFinished', 'a second answer changes nothing');
  });
});

test('postWalletResponse with a key binding to another nonce records VERIFICATION_FAILED and destroys the data key', async (t) => {
  await withWorld(async (world) => {
    const { state } = rightOf(await create(world, { dcql_query: pidQuery }));
    const request = await fetchRequest(world, state);
    const vpToken = await buildVpToken({ ...request, nonce: 'another-nonce' }, { pid: { credential: pid, holder } });
    const recorded = rightOf(await respond(world, state, { kind: 'response', jwe: await encryptResponse(request, { vp_token: vpToken, state }) }));
    if (recorded.event.type !== 'PresentationVerificationFailed') return t.fail(recorded.event.type);
    t.regex(recorded.event.data.errorDetails, /nonce/);
    t.is(await world.dataKeys.find(state), undefined);
  });
});

test('postWalletResponse with a response encrypted to a key the request never offered records PROCESSING_ERROR', async (t) => {
  await withWorld(async (world) => {
    const { state } = rightOf(await create(world, { dcql_query: pidQuery }));
    const request = await fetchRequest(world, state);
    const other = holder.publicJwk;
    const jwe = await encryptResponse({ encryptionKey: { ...other, kid: request.encryptionKey.kid! } }, { vp_token: {}, state });
    const recorded = rightOf(await respond(world, state, { kind: 'response', jwe }));
    if (recorded.event.type !== 'PresentationProcessingFailed') return t.fail(recorded.event.type);
    t.is(recorded.event.data.errorDetails, 'the response could not be decrypted with the request key');
  });
});

test('postWalletResponse with a wallet error carrying another state records PROCESSING_ERROR, with its own state REJECTED', async (t) => {
  await withWorld(async (world) => {
    const a = rightOf(await create(world, { dcql_query: pidQuery }));
    await fetchRequest(world, a.state);
    const wrongState = rightOf(await respond(world, a.state, { kind: 'error', error: 'access_denied', state: 'another' }));
    t.is(wrongState.event.type, 'PresentationProcessingFailed');
    const b = rightOf(await create(world, { dcql_query: pidQuery }));
    await fetchRequest(world, b.state);
    const rejected = rightOf(await respond(world, b.state, { kind: 'error', error: 'access_denied', state: b.state }));
    t.is(rejected.event.type, 'PresentationRejected');
  });
});

test('postWalletResponse after the expiry ends the session as EXPIRED and refuses the answer', async (t) => {
  await withWorld(async (world) => {
    const { state, expiresAt } = rightOf(await create(world, { dcql_query: pidQuery, expires_in: 60 }));
    const request = await fetchRequest(world, state);
    const vpToken = await buildVpToken(request, { pid: { credential: pid, holder } });
    const late = await respond(world, state, { kind: 'response', jwe: await encryptResponse(request, { vp_token: vpToken, state }) }, new Date(expiresAt.getTime() + 1));
    t.true(isLeft(late) && late.left._tag === 'SessionExpired');
    t.deepEqual(await eventTypes(world.store, state), ['PresentationRequested', 'PresentationRequestFetched', 'PresentationExpired']);
    t.is(await world.dataKeys.find(state), undefined);
  });
});

test('postDcApiResponse records FULFILLED for a presentation bound to the page origin, and returns the Presented Credentials Event', async (t) => {
  await withWorld(async (world) => {
    const created = rightOf(await create(world, { dcql_query: pidQuery, flow_type: 'dc_api', expected_origins: [ORIGIN], dc_api_signed: false }));
    const request = walletRequest((created.dcApiRequest as DcApiRequest).data, verifier.clientId);
    const vpToken = await buildVpToken(request, { pid: { credential: pid, holder } }, `origin:${ORIGIN}`);
    const response = await encryptResponse(request, { vp_token: vpToken });
    const event = rightOf(
      await postDcApiResponse(world.deps, { tenantId: TENANT, state: created.state, body: answerBody({ origin: ORIGIN, data: { response } }), metadata: { actor: 'test' }, now: new Date() }),
    );
    t.is(event['status'], 'FULFILLED');
    t.deepEqual(Object.keys((event['credentials'] as Record<string, unknown>) ?? {}), ['pid']);
  });
});

test('postDcApiResponse refuses another tenant, a protocol the session was not offered, and data of no protocol, recording nothing', async (t) => {
  await withWorld(async (world) => {
    const { state } = rightOf(await create(world, { dcql_query: pidQuery, flow_type: 'dc_api', expected_origins: [ORIGIN] }));
    const post = (tenantId: string, body: { origin: string; data: Record<string, unknown>; protocol?: string }) =>
      postDcApiResponse(world.deps, { tenantId, state, body: answerBody(body), metadata: { actor: 'test' }, now: new Date() });
    const otherTenant = await post('tenant-b', { origin: ORIGIN, data: { error: 'access_denied' } });
    t.true(isLeft(otherTenant) && otherTenant.left._tag === 'UnknownSession');
    const notOffered = await post(TENANT, { origin: ORIGIN, data: { error: 'access_denied' }, protocol: 'org-iso-mdoc' });
    t.true(isLeft(notOffered) && notOffered.left._tag === 'NotAnAnswer');
    const shapeless = await post(TENANT, { origin: ORIGIN, data: { nothing: true } });
    t.true(isLeft(shapeless) && shapeless.left._tag === 'NotAnAnswer');
    t.deepEqual(await eventTypes(world.store, state), ['PresentationRequested']);
  });
});

test('postDcApiResponse from a page origin the request did not name records VERIFICATION_FAILED', async (t) => {
  await withWorld(async (world) => {
    const { state } = rightOf(await create(world, { dcql_query: pidQuery, flow_type: 'dc_api', expected_origins: [ORIGIN] }));
    const event = await postDcApiResponse(world.deps, {
      tenantId: TENANT,
      state,
      body: answerBody({ origin: 'https://elsewhere.example', data: { error: 'access_denied' } }),
      metadata: { actor: 'test' },
      now: new Date(),
    });
    t.true(isRight(event));
    t.is(rightOf(event)['status'], 'VERIFICATION_FAILED');
  });
});
