// The OpenID4VP flow end to end over real HTTP: POST /oidc4vp, the signed request object, the
// encrypted wallet response, the terminal event and the callback the integrator receives.
import test from 'ava';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { decodeJwt, type JWK } from 'jose';
import { presentationStream } from '../streams/presentation.js';
import { startVerificationHarness, pidQuery, type VerificationHarness } from './support/wallet/connector.js';
import { answer, fetchAuthorizationRequest, postResponse } from './support/wallet/presentation.js';
import { buildVpToken, encryptResponse, parseRequestUri } from '../wallet/presentation.js';

let h: VerificationHarness;

test.before(async () => {
  h = await startVerificationHarness();
});

test.after.always(async () => {
  await h?.close();
});

const eventTypes = async (state: string): Promise<string[]> => {
  const read = await h.service.service.store.readStream(presentationStream(state));
  return read._tag === 'Found' ? read.events.map((e) => e.type) : [];
};

test('POST /oidc4vp answers 201 with state and both openid4vp URIs naming the access certificate hash', async (t) => {
  const created = await h.create({ dcql_query: pidQuery() });
  t.is(created.status, 201);
  const state = created.json['state'] as string;
  t.regex(state, /^[A-Za-z0-9_-]{43}$/);
  for (const [key, flow] of [['same_device_request_uri', 'same-device'], ['cross_device_request_uri', 'cross-device']] as const) {
    const uri = created.json[key] as string;
    t.true(uri.startsWith('openid4vp://?'));
    const { clientId, requestUri } = parseRequestUri(uri);
    t.regex(clientId, /^x509_hash:[A-Za-z0-9_-]{43}$/);
    t.is(requestUri, `${h.service.config.publicUrl}/oidc4vp/${state}/request?flow_type=${flow}`);
    // URL-encoded: the inner URI's own query does not leak into the outer one.
    t.false(uri.includes('flow_type=same-device&') || uri.includes('?flow_type'));
  }
  t.deepEqual(await eventTypes(state), ['PresentationRequested']);
});

test('the request object is signed with the access certificate and carries its own nonce and key per flow type', async (t) => {
  const created = await h.request({ dcql_query: pidQuery(), transaction_data: [{ type: 'payment', credential_ids: ['pid'], amount: '42.00' }] });
  const first = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
  const second = await fetchAuthorizationRequest(h.endpoints, created.same_device_request_uri);
  const p = first.payload;
  t.is(p['response_type'], 'vp_token');
  t.is(p['response_mode'], 'direct_post.jwt');
  t.is(p['aud'], 'https://self-issued.me/v2');
  t.is(p['state'], created.state);
  t.is(p['response_uri'], `${h.service.config.publicUrl}/oidc4vp/${created.state}/response`);
  t.deepEqual(p['dcql_query'], pidQuery());
  t.true(typeof p['iat'] === 'number' && typeof p['exp'] === 'number' && (p['exp'] as number) > (p['iat'] as number));
  const [encoded] = p['transaction_data'] as string[];
  t.deepEqual(JSON.parse(Buffer.from(encoded!, 'base64url').toString()), { type: 'payment', credential_ids: ['pid'], amount: '42.00' });
  const metadata = p['client_metadata'] as Record<string, unknown>;
  t.deepEqual(metadata['encrypted_response_enc_values_supported'], ['A128GCM', 'A256GCM']);
  t.deepEqual(metadata['vp_formats_supported'], {
    'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
    mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
  });
  const key = first.encryptionKey;
  t.like(key, { kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' });
  t.is((key as JWK & { d?: string }).d, undefined);
  t.is((first.header['x5c'] as string[]).length, 1);
  t.true(first.nonce.length >= 22);
  t.not(first.nonce, second.nonce);
  t.not(first.encryptionKey.kid, second.encryptionKey.kid);
  t.not(first.encryptionKey.x, second.encryptionKey.x);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched', 'PresentationRequestFetched']);
});

test('request_uri_method=post echoes the wallet_nonce', async (t) => {
  const created = await h.request({ dcql_query: pidQuery() });
  const request = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri, { method: 'post', walletNonce: 'wallet-nonce-123' });
  t.is(request.payload['wallet_nonce'], 'wallet-nonce-123');
});

test('an unknown state or a bad flow_type gets an OAuth error, not a request object', async (t) => {
  const unknown = await h.service.wallet(`/oidc4vp/${'A'.repeat(43)}/request?flow_type=same-device`);
  t.is(unknown.status, 404);
  t.like(await unknown.json(), { error: 'invalid_request' });
  t.is(unknown.headers.get('cache-control'), 'no-store');
  const created = await h.request({ dcql_query: pidQuery() });
  const bad = await h.service.wallet(`/oidc4vp/${created.state}/request?flow_type=sideways`);
  t.is(bad.status, 400);
  t.like(await bad.json(), { error: 'invalid_request' });
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested']);
});

test('cross-device: a verified presentation is FULFILLED, without responseCode or redirect', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  t.is(posted.status, 200);
  t.deepEqual(posted.body, {});
  t.is(posted.cacheControl, 'no-store');
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  t.is(callback['state'], created.state);
  t.false('responseCode' in callback);
  t.false('errorDetails' in callback);
  const [credential] = (callback['credentials'] as Record<string, Record<string, unknown>[]>)['pid']!;
  t.like(credential, { issuer: 'https://issuer.example', signatureIsValid: true, kbSignatureIsValid: true });
  t.deepEqual(credential!['claims'], { vct: 'urn:eudi:pid:1', given_name: 'Erika', family_name: 'Mustermann' });
  t.regex(credential!['kbKeyId'] as string, /^[A-Za-z0-9_-]{43}$/);
  t.false('transactionDataHashes' in credential!);
  const [raw] = (callback['credentialsRaw'] as Record<string, Record<string, unknown>[]>)['pid']!;
  t.like(JSON.parse(Buffer.from(raw!['claims'] as string, 'base64').toString()), { given_name: 'Erika' });
  t.false('signatureIsValid' in raw!);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched', 'PresentationFulfilled']);
});

test('same-device: FULFILLED redirects the browser with a response_code equal to the callback responseCode', async (t) => {
  const { created, request } = await h.requestAndFetch(
    { dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done?session=42' },
    'same-device',
  );
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  t.is(posted.status, 200);
  const redirect = new URL(posted.body['redirect_uri'] as string);
  t.is(`${redirect.origin}${redirect.pathname}`, 'https://rp.example/done');
  t.is(redirect.searchParams.get('session'), '42');
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  t.is(callback['responseCode'], redirect.searchParams.get('response_code'));
});

test('transaction data: the credential carries transactionDataHashes of the exact strings sent', async (t) => {
  const { created, request } = await h.requestAndFetch({
    dcql_query: pidQuery(),
    transaction_data: [{ type: 'payment', credential_ids: ['pid'], amount: '10.00', payee: 'Shop' }],
  });
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  const [credential] = (callback['credentials'] as Record<string, Record<string, unknown>[]>)['pid']!;
  t.deepEqual(credential!['transactionDataHashes'], [createHash('sha256').update(request.transactionData[0]!).digest('base64url')]);
});

test('without holder binding the callback has no kbKeyId or kbSignatureIsValid', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery({ require_cryptographic_holder_binding: false }) });
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  const [credential] = (callback['credentials'] as Record<string, Record<string, unknown>[]>)['pid']!;
  t.false('kbKeyId' in credential!);
  t.false('kbSignatureIsValid' in credential!);
});

test('a wallet error response is REJECTED with the OAuth error code, no redirect, even in same-device', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done' }, 'same-device');
  const posted = await postResponse(h.endpoints, request, { error: 'access_denied', error_description: 'user said no', state: created.state });
  t.is(posted.status, 200);
  t.deepEqual(posted.body, {});
  const callback = await h.callback(created.state);
  t.deepEqual(callback, { status: 'REJECTED', state: created.state, errorDetails: 'access_denied' });
});

test('an encrypted error response is REJECTED too', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  const jwe = await encryptResponse(request, { error: 'access_denied', state: created.state });
  t.is((await postResponse(h.endpoints, request, { response: jwe })).status, 200);
  t.like(await h.callback(created.state), { status: 'REJECTED', errorDetails: 'access_denied' });
});

test('no answer before expiry: the scheduler appends EXPIRED and the request object is gone', async (t) => {
  const created = await h.request({ dcql_query: pidQuery(), expires_in: 1 });
  const callback = await h.callback(created.state);
  t.deepEqual(callback, { status: 'EXPIRED', state: created.state });
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationExpired']);
  const fetched = await h.service.wallet(`/oidc4vp/${created.state}/request?flow_type=cross-device`);
  t.is(fetched.status, 400);
  t.like(await fetched.json(), { error: 'invalid_request' });
});

test('a late wallet after expiry loses: one EXPIRED, the response is refused', async (t) => {
  // Long enough for the fetch to come first on a busy machine; the callback wait is bounded.
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery(), expires_in: 3 });
  t.like(await h.callback(created.state), { status: 'EXPIRED' });
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  t.is(posted.status, 400);
  t.is(posted.body['error'], 'invalid_request');
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched', 'PresentationExpired']);
});

test('a response encrypted to another key is a PROCESSING_ERROR without responseCode', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done' }, 'same-device');
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as JWK;
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } }, { key: other });
  t.is(posted.status, 400);
  t.is(posted.body['error'], 'invalid_request');
  t.false('redirect_uri' in posted.body);
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'PROCESSING_ERROR');
  t.is(typeof callback['errorDetails'], 'string');
  t.false('responseCode' in callback);
  t.false('credentials' in callback);
});

test('a response naming no key of the request (unknown kid) is a PROCESSING_ERROR', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } }, { kid: 'not-a-request-key' })).status, 400);
  t.like(await h.callback(created.state), { status: 'PROCESSING_ERROR' });
});

test('a response without kid is matched against the request keys', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } }, { kid: null, enc: 'A256GCM' })).status, 200);
  t.like(await h.callback(created.state), { status: 'FULFILLED' });
});

test('a response carrying another state is a PROCESSING_ERROR', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  const jwe = await encryptResponse(request, { vp_token: {}, state: 'someone-elses-state' });
  t.is((await postResponse(h.endpoints, request, { response: jwe })).status, 400);
  t.like(await h.callback(created.state), { status: 'PROCESSING_ERROR' });
});

test('a replayed response to a finished session is refused and changes nothing', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  const vpToken = await buildVpToken(request, { pid: { credential: await h.pid(), holder: h.holder } });
  const jwe = await encryptResponse(request, { vp_token: vpToken, state: created.state });
  t.is((await postResponse(h.endpoints, request, { response: jwe })).status, 200);
  const replay = await postResponse(h.endpoints, request, { response: jwe });
  t.is(replay.status, 400);
  t.is(replay.body['error'], 'invalid_request');
  const rejection = await postResponse(h.endpoints, request, { error: 'access_denied', state: created.state });
  t.is(rejection.status, 400);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched', 'PresentationFulfilled']);
  // The finished session hands out no request object either.
  const refetch = await h.service.wallet(`/oidc4vp/${created.state}/request?flow_type=cross-device`);
  t.is(refetch.status, 400);
  t.is((await h.callback(created.state))['status'], 'FULFILLED');
  t.is(h.callbacks(created.state).length, 1);
});

test('malformed wallet posts get an OAuth error and change nothing', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  const url = `/oidc4vp/${created.state}/response`;
  const form = (body: string) =>
    h.service.wallet(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
  for (const body of ['', 'response=a&response=b', 'response=x&error=access_denied', 'error=bad%22code']) {
    const r = await form(body);
    t.is(r.status, 400, body);
    t.like(await r.json(), { error: 'invalid_request' });
  }
  const json = await h.service.wallet(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  t.is(json.status, 415);
  t.like(await json.json(), { error: 'invalid_request' });
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched']);
  // The session is still open: the honest answer still works.
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
});

test('the request object exp does not outlive the session', async (t) => {
  const { request } = await h.requestAndFetch({ dcql_query: pidQuery(), expires_in: 60 });
  const { iat, exp } = decodeJwt(request.jwt);
  t.true(exp! - iat! <= 61);
});

test('a re-fetch serves the recorded nonce and key, signed afresh with its own wallet_nonce', async (t) => {
  const created = await h.request({ dcql_query: pidQuery() });
  const first = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
  const again = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri, { method: 'post', walletNonce: 'wallet-nonce-456' });
  t.is(again.nonce, first.nonce);
  t.deepEqual(again.encryptionKey, first.encryptionKey);
  t.is(again.payload['wallet_nonce'], 'wallet-nonce-456');
  t.is(first.payload['wallet_nonce'], undefined);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched']);
  t.is((await answer(h.endpoints, again, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  t.like(await h.callback(created.state), { status: 'FULFILLED' });
});

test('HEAD on the request URI answers as a GET would and records nothing', async (t) => {
  const created = await h.request({ dcql_query: pidQuery() });
  const head = (path: string) => h.service.wallet(path, { method: 'HEAD' });
  const open = await head(`/oidc4vp/${created.state}/request?flow_type=cross-device`);
  t.is(open.status, 200);
  t.is(open.headers.get('content-type'), 'application/oauth-authz-req+jwt');
  t.is(open.headers.get('cache-control'), 'no-store');
  t.is(await open.text(), '');
  t.is((await head(`/oidc4vp/${'A'.repeat(43)}/request?flow_type=cross-device`)).status, 404);
  t.is((await head(`/oidc4vp/${created.state}/request?flow_type=sideways`)).status, 400);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested']);
});

test('hammering the request URI with GET and HEAD records one fetch per flow type and does not lock the wallet out', async (t) => {
  const created = await h.request({ dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done' });
  const path = `/oidc4vp/${created.state}/request?flow_type=`;
  for (let i = 0; i < 50; i++) {
    for (const method of ['GET', 'HEAD']) {
      for (const flow of ['cross-device', 'same-device']) {
        const r = await h.service.wallet(`${path}${flow}`, { method });
        t.is(r.status, 200);
        await r.arrayBuffer();
      }
    }
  }
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched', 'PresentationRequestFetched']);
  // The wallet comes after: its fetch is served, and its answer accepted.
  const request = await fetchAuthorizationRequest(h.endpoints, created.same_device_request_uri, { method: 'post', walletNonce: 'after-the-storm' });
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  t.is(posted.status, 200);
  t.truthy(posted.body['redirect_uri']);
  t.like(await h.callback(created.state), { status: 'FULFILLED' });
  t.is((await eventTypes(created.state)).length, 4);
});
