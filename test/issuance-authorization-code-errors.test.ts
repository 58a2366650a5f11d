// Every refusal of the authorization code flow over HTTP, with the right OAuth error and nothing
// issued: client authentication, PKCE, redirect_uri, request_uri and code reuse, issuer_state,
// DPoP nonces at the token and credential endpoints, the DPoP key a code is bound to (RFC 9449
// section 10), redirect_uri schemes a browser would run, and the integrator's denial.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { offerStream } from '../streams/offer.js';
import { configureTenantAuthentication } from '../src/issuance/tenantAuthentication.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { newWalletKey, dpopProof, thumbprint, type WalletKey } from '../wallet/keys.js';
import { attestationPop, createWalletProvider, walletAttestation, type WalletProvider } from '../wallet/walletProvider.js';
import { startTestService, withReachablePublicUrl, type TestService } from './support/service.js';
import { createOffer, PID_CLAIMS, waitForOffer } from './support/wallet/issuanceChecks.js';

const LOGIN = 'https://login.integrator.example/authenticate';
const REDIRECT_URI = 'https://wallet.example/callback';

let service: TestService;
let provider: WalletProvider;
let untrusted: WalletProvider;

test.before(async () => {
  [provider, untrusted] = await Promise.all([createWalletProvider(), createWalletProvider({ name: 'Untrusted Wallet Provider' })]);
  service = await withReachablePublicUrl((env) => startTestService({ env: { ...env, WALLET_PROVIDER_TRUST_ANCHORS: provider.anchor, AUTHENTICATION_URL: LOGIN } }));
});

test.after.always(async () => {
  await service?.cleanup();
});

interface Wallet {
  readonly clientId: string;
  readonly instance: WalletKey;
  readonly dpop: WalletKey;
  readonly verifier: string;
  readonly challenge: string;
}

const newWallet = async (): Promise<Wallet> => {
  const verifier = randomBytes(32).toString('base64url');
  return { clientId: `wallet-${randomBytes(4).toString('hex')}`, instance: await newWalletKey(), dpop: await newWalletKey(), verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const attestationHeaders = async (w: Wallet, p: WalletProvider = provider) => ({
  'OAuth-Client-Attestation': await walletAttestation(p, { clientId: w.clientId, instanceJwk: w.instance.publicJwk }),
  'OAuth-Client-Attestation-PoP': await attestationPop(w.instance, { clientId: w.clientId, audience: service.config.publicUrl }),
});

const form = async (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
  const response = await service.wallet(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

const issuerStateOf = async (offerId: string): Promise<string> => {
  const offer = (await (await service.wallet(`/oidc4vci/offers/${offerId}`)).json()) as { grants: { authorization_code: { issuer_state: string } } };
  return offer.grants.authorization_code.issuer_state;
};

const parFields = (w: Wallet, issuerState: string, more: Record<string, string> = {}) => ({
  response_type: 'code', client_id: w.clientId, redirect_uri: REDIRECT_URI, code_challenge: w.challenge, code_challenge_method: 'S256', issuer_state: issuerState, scope: 'pid', state: 'st', ...more,
});

const authorize = (clientId: string, requestUri: string) =>
  service.wallet(`/oidc4vci/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`, { redirect: 'manual' });

const complete = async (authorizationId: string, body: unknown, key?: string) => {
  const response = await service.management(`/authorizations/${encodeURIComponent(authorizationId)}/complete`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), ...(key === undefined ? {} : { key }),
  });
  return { status: response.status, body: (await response.json()) as { redirect_to?: string; type?: string } };
};

/** An offer taken to the authorization the integrator is asked about. */
const startAuthorization = async (w: Wallet) => {
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const par = await form('/oidc4vci/par', parFields(w, await issuerStateOf(created.offer_id)), await attestationHeaders(w));
  if (par.status !== 201) throw new Error(`PAR ${par.status} ${JSON.stringify(par.body)}`);
  const visit = await authorize(w.clientId, par.body['request_uri'] as string);
  return { offerId: created.offer_id, requestUri: par.body['request_uri'] as string, authorizationId: new URL(visit.headers.get('location')!).searchParams.get('authorization_id')! };
};

/** ... and completed: the code from the redirect. */
const codeFor = async (w: Wallet) => {
  const started = await startAuthorization(w);
  const completed = await complete(started.authorizationId, {});
  return { ...started, code: new URL(completed.body.redirect_to!).searchParams.get('code')! };
};

const tokenUrl = () => `${service.config.publicUrl}/oidc4vci/token`;

const tokenRequest = async (w: Wallet, code: string, more: Record<string, string> = {}, nonce?: string) =>
  form('/oidc4vci/token', { grant_type: 'authorization_code', code, code_verifier: w.verifier, redirect_uri: REDIRECT_URI, client_id: w.clientId, ...more }, {
    ...(await attestationHeaders(w)),
    DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl(), ...(nonce === undefined ? {} : { nonce }) }),
  });

/** The current DPoP nonce, as a wallet learns it: from a use_dpop_nonce refusal. */
const currentNonce = async (w: Wallet, code: string): Promise<string> => {
  const refused = await tokenRequest(w, code);
  return refused.headers.get('dpop-nonce')!;
};

test('a pushed request without a wallet attestation, with one from an untrusted provider, a PoP that is old, for another aud or used before, or a sub other than client_id, is invalid_client', async (t) => {
  const w = await newWallet();
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const fields = parFields(w, await issuerStateOf(created.offer_id));
  const none = await form('/oidc4vci/par', fields);
  t.is(none.status, 401);
  t.is(none.body['error'], 'invalid_client');
  const foreign = await form('/oidc4vci/par', fields, await attestationHeaders(w, untrusted));
  t.like(foreign, { status: 401, body: { error: 'invalid_client' } });
  t.regex(foreign.body['error_description'] as string, /trusted wallet provider/);
  const staleHeaders = await attestationHeaders(w);
  const stale = await form('/oidc4vci/par', fields, { ...staleHeaders, 'OAuth-Client-Attestation-PoP': await attestationPop(w.instance, { clientId: w.clientId, audience: service.config.publicUrl, iat: Math.floor(Date.now() / 1000) - 3600 }) });
  t.like(stale, { status: 401, body: { error: 'invalid_client' } });
  const elsewhere = await form('/oidc4vci/par', fields, { ...(await attestationHeaders(w)), 'OAuth-Client-Attestation-PoP': await attestationPop(w.instance, { clientId: w.clientId, audience: 'https://another-issuer.example' }) });
  t.like(elsewhere, { status: 401, body: { error: 'invalid_client' } });
  t.regex(elsewhere.body['error_description'] as string, /aud must be/);
  const otherClient = await form('/oidc4vci/par', { ...fields, client_id: 'another-client' }, await attestationHeaders(w));
  t.like(otherClient, { status: 401, body: { error: 'invalid_client' } });
  t.regex(otherClient.body['error_description'] as string, /sub is not the client_id/);
  const spentHeaders = await attestationHeaders(w);
  t.is((await form('/oidc4vci/par', fields, spentHeaders)).status, 201);
  const replayed = await form('/oidc4vci/par', fields, spentHeaders);
  t.like(replayed, { status: 401, body: { error: 'invalid_client' } });
  t.regex(replayed.body['error_description'] as string, /already used/);
});

test('a pushed request with PKCE plain, without issuer_state or with an unknown one is invalid_request', async (t) => {
  const w = await newWallet();
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const issuerState = await issuerStateOf(created.offer_id);
  const plain = await form('/oidc4vci/par', parFields(w, issuerState, { code_challenge: w.verifier, code_challenge_method: 'plain' }), await attestationHeaders(w));
  t.like(plain, { status: 400, body: { error: 'invalid_request', error_description: 'code_challenge_method must be S256.' } });
  const { issuer_state: _, ...withoutState } = parFields(w, issuerState);
  t.like(await form('/oidc4vci/par', withoutState, await attestationHeaders(w)), { status: 400, body: { error: 'invalid_request' } });
  const forged = `${created.offer_id}.${'A'.repeat(43)}`;
  t.like(await form('/oidc4vci/par', parFields(w, forged), await attestationHeaders(w)), { status: 400, body: { error: 'invalid_request', error_description: 'issuer_state is unknown.' } });
  const unknownScope = await form('/oidc4vci/par', parFields(w, issuerState, { scope: 'nothing' }), await attestationHeaders(w));
  t.like(unknownScope, { status: 400, body: { error: 'invalid_scope' } });
});

test('a request_uri is used once, and only by its client', async (t) => {
  const w = await newWallet();
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const par = await form('/oidc4vci/par', parFields(w, await issuerStateOf(created.offer_id)), await attestationHeaders(w));
  const requestUri = par.body['request_uri'] as string;
  t.is((await authorize('another-client', requestUri)).status, 400);
  t.is((await authorize(w.clientId, requestUri)).status, 302);
  const again = await authorize(w.clientId, requestUri);
  t.is(again.status, 400);
  t.like(await again.json(), { error: 'invalid_request' });
});

test('a token request without the current DPoP nonce is use_dpop_nonce with a DPoP-Nonce header, and spends nothing', async (t) => {
  const w = await newWallet();
  const { code } = await codeFor(w);
  const refused = await tokenRequest(w, code);
  t.like(refused, { status: 400, body: { error: 'use_dpop_nonce' } });
  const nonce = refused.headers.get('dpop-nonce');
  t.truthy(nonce);
  t.like(await tokenRequest(w, code, {}, 'not-the-nonce'), { status: 400, body: { error: 'use_dpop_nonce' } });
  const token = await tokenRequest(w, code, {}, nonce!);
  t.is(token.status, 200);
  t.truthy(token.headers.get('dpop-nonce'));
});

test('a wallet told use_dpop_nonce retries with the same attestation PoP and the nonce, and gets its token; the PoP is then spent', async (t) => {
  const w = await newWallet();
  const { code } = await codeFor(w);
  const attestation = await attestationHeaders(w);
  const fields = { grant_type: 'authorization_code', code, code_verifier: w.verifier, redirect_uri: REDIRECT_URI, client_id: w.clientId };
  const first = await form('/oidc4vci/token', fields, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl() }) });
  t.like(first, { status: 400, body: { error: 'use_dpop_nonce' } });
  const nonce = first.headers.get('dpop-nonce')!;
  const retry = await form('/oidc4vci/token', fields, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl(), nonce }) });
  t.is(retry.status, 200, JSON.stringify(retry.body));
  const replayed = await form('/oidc4vci/token', fields, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl(), nonce }) });
  t.like(replayed, { status: 401, body: { error: 'invalid_client' } });
  t.regex(replayed.body['error_description'] as string, /already used/);
});

test('a token request with a wrong code_verifier or another redirect_uri is invalid_grant', async (t) => {
  const w = await newWallet();
  const { code } = await codeFor(w);
  const nonce = await currentNonce(w, code);
  t.like(await tokenRequest(w, code, { code_verifier: randomBytes(32).toString('base64url') }, nonce), { status: 400, body: { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge.' } });
  t.like(await tokenRequest(w, code, { redirect_uri: 'https://attacker.example/cb' }, nonce), { status: 400, body: { error: 'invalid_grant', error_description: 'redirect_uri is not the one of the authorization request.' } });
  t.like(await tokenRequest(w, code, { code: `${code.split('.')[0]}.${'B'.repeat(43)}` }, nonce), { status: 400, body: { error: 'invalid_grant' } });
  t.is((await tokenRequest(w, code, {}, nonce)).status, 200, 'the refusals spent nothing');
});

test('a token request without client authentication is invalid_client', async (t) => {
  const w = await newWallet();
  const { code } = await codeFor(w);
  const refused = await form('/oidc4vci/token', { grant_type: 'authorization_code', code, code_verifier: w.verifier, redirect_uri: REDIRECT_URI }, {
    DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl() }),
  });
  t.like(refused, { status: 401, body: { error: 'invalid_client' } });
});

test('a code used twice is refused, and the token issued with it is then refused too', async (t) => {
  const w = await newWallet();
  const { code } = await codeFor(w);
  const nonce = await currentNonce(w, code);
  const first = await tokenRequest(w, code, {}, nonce);
  t.is(first.status, 200);
  const accessToken = first.body['access_token'] as string;
  t.like(await tokenRequest(w, code, {}, nonce), { status: 400, body: { error: 'invalid_grant', error_description: 'The authorization code was already used.' } });
  const credentialUrl = `${service.config.publicUrl}/oidc4vci/credential`;
  const refused = await service.wallet('/oidc4vci/credential', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `DPoP ${accessToken}`, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: credentialUrl, accessToken, nonce }) },
    body: JSON.stringify({ credential_configuration_id: 'pid', proofs: { jwt: ['x'] } }),
  });
  t.is(refused.status, 401);
  t.like(await refused.json(), { error: 'invalid_token' });
});

test('a credential request without the current DPoP nonce is 401 use_dpop_nonce with WWW-Authenticate and DPoP-Nonce', async (t) => {
  const w = await newWallet();
  const { code } = await codeFor(w);
  const token = await tokenRequest(w, code, {}, await currentNonce(w, code));
  const accessToken = token.body['access_token'] as string;
  const credentialUrl = `${service.config.publicUrl}/oidc4vci/credential`;
  const refused = await service.wallet('/oidc4vci/credential', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `DPoP ${accessToken}`, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: credentialUrl, accessToken }) },
    body: JSON.stringify({ credential_configuration_id: 'pid', proofs: { jwt: ['x'] } }),
  });
  t.is(refused.status, 401);
  t.regex(refused.headers.get('www-authenticate') ?? '', /^DPoP error="use_dpop_nonce"/);
  t.truthy(refused.headers.get('dpop-nonce'));
  t.like(await refused.json(), { error: 'use_dpop_nonce' });
});

test('the integrator denying the authorization fails the offer with access_denied and sends the wallet the error', async (t) => {
  const w = await newWallet();
  const { offerId, authorizationId } = await startAuthorization(w);
  const denied = await complete(authorizationId, { error: 'access_denied', error_description: 'The user cancelled.' });
  t.is(denied.status, 200);
  const redirect = new URL(denied.body.redirect_to!);
  t.is(redirect.searchParams.get('error'), 'access_denied');
  t.is(redirect.searchParams.get('state'), 'st');
  t.is(redirect.searchParams.get('iss'), service.config.publicUrl);
  t.is(redirect.searchParams.get('code'), null);
  const offer = await waitForOffer(service, offerId, (o) => o.status === 'FAILED');
  t.is(offer.error_details, 'access_denied');
  t.is((await complete(authorizationId, {})).status, 409, 'the authorization is over, and its offer with it');
});

test('an authorization is unknown to another tenant and to made-up ids', async (t) => {
  const w = await newWallet();
  const { authorizationId } = await startAuthorization(w);
  t.is((await service.management(`/authorizations/${encodeURIComponent(`${authorizationId.split('.')[0]}.${'C'.repeat(43)}`)}`)).status, 404);
  const other = await createTenant(service.service.store, { name: 'other' }, { actor: 'test' });
  if (isLeft(other)) throw new Error('tenant');
  const otherKey = await createApiKey(service.service.store, { tenantId: other.right.tenantId, scopes: ['connector'], expiration: null }, { actor: 'test' });
  if (isLeft(otherKey)) throw new Error('key');
  await service.service.runner.waitFor(otherKey.right.position, 5000);
  const key = otherKey.right.secret;
  t.is((await service.management(`/authorizations/${encodeURIComponent(authorizationId)}`, { key })).status, 404);
  t.is((await complete(authorizationId, {}, key)).status, 404);
  t.is((await service.management(`/authorizations/${encodeURIComponent(authorizationId)}`)).status, 200);
});

test('offers with the authorization_code grant refuse tx_code; completing with other claims than the offer\'s is 409', async (t) => {
  const withTxCode = await service.management('/offers', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code', tx_code: { input_mode: 'numeric', length: 6 } }),
  });
  t.is(withTxCode.status, 400);
  const w = await newWallet();
  const { authorizationId } = await startAuthorization(w);
  t.is((await complete(authorizationId, { claims: { ...PID_CLAIMS, given_name: 'Someone else' } })).status, 409);
  t.is((await complete(authorizationId, { claims: PID_CLAIMS })).status, 200, 'the same claims again are fine');
});

test('with WALLET_ATTESTATION=required, a pre-authorized token request needs a wallet attestation too', async (t) => {
  const strict = await startTestService({ env: { WALLET_PROVIDER_TRUST_ANCHORS: provider.anchor, WALLET_ATTESTATION: 'required' } });
  try {
    const created = await createOffer(strict, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const offer = (await (await strict.wallet(`/oidc4vci/offers/${created.offer_id}`)).json()) as { grants: Record<string, { 'pre-authorized_code': string }> };
    const code = offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code'];
    const w = await newWallet();
    const request = async (headers: Record<string, string>) => {
      const response = await strict.wallet('/oidc4vci/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: `${strict.config.publicUrl}/oidc4vci/token` }), ...headers },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code, client_id: w.clientId }).toString(),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    t.like(await request({}), { status: 401, body: { error: 'invalid_client' } });
    const attested = {
      'OAuth-Client-Attestation': await walletAttestation(provider, { clientId: w.clientId, instanceJwk: w.instance.publicJwk }),
      'OAuth-Client-Attestation-PoP': await attestationPop(w.instance, { clientId: w.clientId, audience: strict.config.publicUrl }),
    };
    t.is((await request(attested)).status, 200, 'the refusal spent nothing');
  } finally {
    await strict.cleanup();
  }
});

test('a tenant without an authentication URL cannot offer the authorization code flow until one is configured; an offer may name its own', async (t) => {
  const other = await createTenant(service.service.store, { name: 'no-login-yet' }, { actor: 'test' });
  if (isLeft(other)) throw new Error('tenant');
  const otherKey = await createApiKey(service.service.store, { tenantId: other.right.tenantId, scopes: ['connector'], expiration: null }, { actor: 'test' });
  if (isLeft(otherKey)) throw new Error('key');
  await service.service.runner.waitFor(otherKey.right.position, 5000);
  const offer = (extra: Record<string, unknown> = {}) =>
    service.management('/offers', {
      method: 'POST', key: otherKey.right.secret, headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code', ...extra }),
    });
  const refused = await offer();
  t.is(refused.status, 422);
  t.like(await refused.json(), { type: '/problems/authentication_url_missing' });
  t.is((await offer({ authentication_url: 'https://own-login.example/start' })).status, 201);
  const configured = await configureTenantAuthentication(service.service.store, { tenantId: other.right.tenantId, url: 'https://tenant-login.example/start' }, { actor: 'test' });
  t.true(isRight(configured));
  t.is((await offer()).status, 201);
});

const parUrl = () => `${service.config.publicUrl}/oidc4vci/par`;

test('a pushed request whose DPoP proof is bad, or whose dpop_jkt is not the proof\'s key, is invalid_dpop_proof, records nothing and spends no attestation PoP', async (t) => {
  const w = await newWallet();
  const other = await newWalletKey();
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const fields = parFields(w, await issuerStateOf(created.offer_id));
  const attestation = await attestationHeaders(w);
  const wrongHtu = await form('/oidc4vci/par', fields, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl() }) });
  t.like(wrongHtu, { status: 400, body: { error: 'invalid_dpop_proof' } });
  const mismatch = await form('/oidc4vci/par', { ...fields, dpop_jkt: await thumbprint(other.publicJwk) }, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: parUrl() }) });
  t.like(mismatch, { status: 400, body: { error: 'invalid_dpop_proof', error_description: "dpop_jkt is not the thumbprint of the DPoP proof's key." } });
  const malformed = await form('/oidc4vci/par', { ...fields, dpop_jkt: 'not a thumbprint' }, attestation);
  t.like(malformed, { status: 400, body: { error: 'invalid_request' } });
  const read = await service.service.store.readStream(offerStream(created.offer_id));
  t.deepEqual(read._tag === 'Found' ? read.events.map((e) => e.type) : [], ['OfferCreated'], 'the refusals recorded nothing');
  const both = await form('/oidc4vci/par', { ...fields, dpop_jkt: await thumbprint(w.dpop.publicJwk) }, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: parUrl() }) });
  t.is(both.status, 201, 'the same attestation PoP, unspent by the refusals, with a proof and dpop_jkt of one key');
  t.truthy(both.headers.get('dpop-nonce'), 'the answer carries the nonce for the token request');
});

test('dpop_jkt at the authorization endpoint binds the code; one naming another key than the pushed request is refused', async (t) => {
  const w = await newWallet();
  const other = await newWalletKey();
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const par = await form('/oidc4vci/par', parFields(w, await issuerStateOf(created.offer_id)), await attestationHeaders(w));
  const requestUri = par.body['request_uri'] as string;
  const visit = (jkt: string) => service.wallet(`/oidc4vci/authorize?${new URLSearchParams({ client_id: w.clientId, request_uri: requestUri, dpop_jkt: jkt })}`, { redirect: 'manual' });
  t.is((await visit('short')).status, 400);
  const bound = await visit(await thumbprint(w.dpop.publicJwk));
  t.is(bound.status, 302);
  const completed = await complete(new URL(bound.headers.get('location')!).searchParams.get('authorization_id')!, {});
  const code = new URL(completed.body.redirect_to!).searchParams.get('code')!;
  const nonce = await currentNonce(w, code);
  const wrongKey = await form('/oidc4vci/token', { grant_type: 'authorization_code', code, code_verifier: w.verifier, redirect_uri: REDIRECT_URI, client_id: w.clientId }, {
    ...(await attestationHeaders(w)),
    DPoP: await dpopProof(other, { htm: 'POST', htu: tokenUrl(), nonce }),
  });
  t.like(wrongKey, { status: 400, body: { error: 'invalid_dpop_proof' } });
  t.is((await tokenRequest(w, code, {}, nonce)).status, 200, 'the code, unspent, is redeemed with the bound key');

  const w2 = await newWallet();
  const created2 = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const par2 = await form('/oidc4vci/par', { ...parFields(w2, await issuerStateOf(created2.offer_id)), dpop_jkt: await thumbprint(w2.dpop.publicJwk) }, await attestationHeaders(w2));
  const conflicting = await service.wallet(`/oidc4vci/authorize?${new URLSearchParams({ client_id: w2.clientId, request_uri: par2.body['request_uri'] as string, dpop_jkt: await thumbprint(other.publicJwk) })}`, { redirect: 'manual' });
  t.is(conflicting.status, 400);
  t.like(await conflicting.json(), { error: 'invalid_request' });
});

test('a pushed request whose redirect_uri a browser would run or render, or plain http off loopback, is invalid_request, however it is spelled', async (t) => {
  const w = await newWallet();
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const issuerState = await issuerStateOf(created.offer_id);
  const refused = [
    'javascript:alert(1)', 'JavaScript:alert(1)', 'JAVASCRIPT://%0aalert(1)', ' javascript:alert(1)', '\x01javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)',
    'data:text/html,<script>alert(1)</script>', 'DATA:text/html;base64,PHNjcmlwdD4=', 'vbscript:msgbox(1)', 'VBScript:msgbox(1)',
    'file:///etc/passwd', 'FILE://host/share', 'blob:https://wallet.example/1234', 'Blob:null/abcd',
    'http://wallet.example/callback', 'HTTP://10.0.0.7/cb', 'http://127.0.0.1.wallet.example/cb', // plain http off loopback
  ];
  for (const uri of refused) {
    const answer = await form('/oidc4vci/par', parFields(w, issuerState, { redirect_uri: uri }), await attestationHeaders(w));
    t.like(answer, { status: 400, body: { error: 'invalid_request' } }, JSON.stringify(uri));
  }
  const read = await service.service.store.readStream(offerStream(created.offer_id));
  t.deepEqual(read._tag === 'Found' ? read.events.map((e) => e.type) : [], ['OfferCreated'], 'nothing recorded');
});

test('claimed https, private-use schemes and loopback http redirect URIs are accepted', async (t) => {
  const w = await newWallet();
  for (const uri of ['https://wallet.example/callback', 'eu.europa.ec.wallet:/cb', 'com.example.app:/oauth2redirect', 'http://127.0.0.1:49152/callback', 'http://[::1]:8080/cb']) {
    const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
    const answer = await form('/oidc4vci/par', parFields(w, await issuerStateOf(created.offer_id), { redirect_uri: uri }), await attestationHeaders(w));
    t.is(answer.status, 201, uri);
  }
});
