// Onboarding an organisation (issue 38) end to end over HTTP on loopback, through the real routes
// only: two tenants, each making its issuer and access keys (POST /signing-keys with a development
// chain), activating them and creating a credential configuration; then an independent wallet
// library (oid4vc-ts) resolves each tenant's offer, finds its issuer by the path-inserted
// well-known URL and receives a credential that chains to the tenant's own certificate; each
// tenant's request object verifies under its own `x509_hash:` and a presentation of that
// credential through the wallet simulator is FULFILLED. A configuration changed with If-Match
// applies to new offers only; a key rotation through the routes leaves older credentials valid at
// a verifier; a registration certificate set with PUT /verifier rides in `verifier_info` and,
// enforced, refuses a query outside it; one tenant's keys, configurations and tokens are nothing
// to another. The wallet simulator finds each issuer's endpoints in its metadata.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { importJWK } from 'jose';
import { setGlobalConfig } from '@openid4vc/oauth2';
import { certificatesFromPem, x509HashClientId, type CryptoKey } from '../src/crypto/certificates.js';
import { loadDevelopmentCa } from '../src/crypto/signingIdentity.js';
import type { x509 } from '../src/crypto/x509.js';
import { tenantCredentialIssuer } from '../src/tenantIdentity/ports.js';
import { allScopes } from '../streams/apiKey.js';
import { presentationStream } from '../streams/presentation.js';
import type { Fetch } from '../wallet/http.js';
import { IssuanceWallet, type CredentialOffer } from '../wallet/issuance.js';
import { discoverIssuer } from '../wallet/issuerMetadata.js';
import { holdCredential } from '../wallet/sdJwt.js';
import { dpopProof, newWalletKey, type WalletKey } from '../wallet/keys.js';
import { createWalletProvider, type WalletProvider } from '../wallet/walletProvider.js';
import type { Holder } from './support/credentials.js';
import { keyWith, type TestKey } from './support/console.js';
import { documentedFetch } from './support/openapi.js';
import { withReachablePublicUrl } from './support/service.js';
import { startVerificationHarness, type Created, type VerificationHarness } from './support/wallet/connector.js';
import { verifyIssuedCredential } from './support/wallet/issuanceChecks.js';
import { libraryWallet } from './support/wallet/libraryWallet.js';
import { registrarAnchor, registrationCertificate } from './support/registrationCertificate.js';
import { answer, fetchAuthorizationRequest } from './support/wallet/presentation.js';
import { walletFetch } from './support/wallet/transport.js';

type Resource = { id: string; etag: string; revision: number; data: Record<string, unknown> };

const json = { 'Content-Type': 'application/json' };
const en = (name: string) => [{ lang: 'en', name }];

/** A membership card of `vct`, in the shape of a CREDENTIAL_CONFIGURATIONS file entry. */
const membership = (vct: string) => ({
  id: 'membership',
  vct,
  display: en('Membership card'),
  claims: [
    { path: ['member_number'], mandatory: true, sd: 'never', value_type: 'string', display: en('Member number') },
    { path: ['given_name'], mandatory: true, sd: 'always', value_type: 'string', display: en('Given name') },
    { path: ['family_name'], mandatory: true, sd: 'always', value_type: 'string', display: en('Family name') },
  ],
});
const CLAIMS = { member_number: 'M-1', given_name: 'Erika', family_name: 'Mustermann' };

/** A tenant's API key and the connector it is a tenant of. */
interface Member extends TestKey {
  readonly at: VerificationHarness;
}

interface Tenant extends Member {
  readonly name: string;
  readonly identifier: string;
  readonly vct: string;
  issuerKey: Resource;
  readonly accessKey: Resource;
  configuration: Resource;
}

let h: VerificationHarness;
/** A connector whose verifier holds no trust anchor (the deployment's defaults). */
let unanchored: VerificationHarness;
let provider: WalletProvider;
let bank: Tenant;
let city: Tenant;

const call = async (tenant: Member, path: string, init: { method?: string; body?: unknown; ifMatch?: string } = {}) => {
  const response = await tenant.at.service.management(path, {
    method: init.method ?? 'GET',
    key: tenant.secret,
    headers: { ...(init.body !== undefined ? json : {}), ...(init.ifMatch ? { 'If-Match': init.ifMatch } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const expect = async (status: number, pending: ReturnType<typeof call>): Promise<Resource> => {
  const answered = await pending;
  if (answered.status !== status) throw new Error(`expected ${status}, got ${answered.status}: ${JSON.stringify(answered.body)}`);
  return answered.body as unknown as Resource;
};

/** A key of `role` certified by the development CA and activated, through the routes. */
const activeKey = async (tenant: Member, role: 'issuer' | 'access'): Promise<Resource> => {
  const created = await expect(201, call(tenant, '/signing-keys', { method: 'POST', body: { role, development_chain: true } }));
  return expect(200, call(tenant, `/signing-keys/${created.id}/activate`, { method: 'POST', ifMatch: created.etag }));
};

/** A new tenant onboarded as an organisation would be: keys, activation, a configuration. */
const onboard = async (name: string, on: VerificationHarness = h): Promise<Tenant> => {
  const key = { ...(await keyWith(on.service, allScopes, name)), at: on };
  const vct = `urn:example:${name}:membership:1`;
  const issuerKey = await activeKey(key, 'issuer');
  const accessKey = await activeKey(key, 'access');
  const configuration = await expect(201, call(key, '/credential-configurations', { method: 'POST', body: { data: membership(vct) } }));
  return { ...key, name, vct, identifier: tenantCredentialIssuer(on.service.config.publicUrl, key.tenantId), issuerKey, accessKey, configuration };
};

const leafOf = (key: Resource): x509.X509Certificate => certificatesFromPem(String(key.data['certificate_chain']))[0]!;

test.before(async () => {
  setGlobalConfig({ allowInsecureUrls: true });
  provider = await createWalletProvider();
  // The verifier trusts the deployment's development CA, as a verifier trusts the CA of the issuers it
  // accepts: a status list signed by a tenant's rotated key is tied to an older credential through it.
  const dataDir = await mkdtemp(join(tmpdir(), 'connector-'));
  const developmentCa = await loadDevelopmentCa(dataDir, 'onboarding test development CA');
  const anchors = {
    X509_VERIFY_TRUST_ANCHOR: 'true',
    X509_TRUST_ANCHORS: Buffer.from(developmentCa.certificate.rawData).toString('base64'),
    REGISTRATION_CERTIFICATE_TRUST_ANCHORS: await registrarAnchor(),
  };
  h = await withReachablePublicUrl((env) => startVerificationHarness({ ...env, ...anchors, WALLET_PROVIDER_TRUST_ANCHORS: provider.anchor }, { dataDir }));
  unanchored = await withReachablePublicUrl((env) => startVerificationHarness({ ...env, WALLET_PROVIDER_TRUST_ANCHORS: provider.anchor }));
  bank = await onboard('bank');
  city = await onboard('city');
});

test.after.always(async () => {
  await h?.close();
  await unanchored?.close();
});

const offerUri = async (tenant: Tenant): Promise<string> => {
  const created = await call(tenant, '/offers', { method: 'POST', body: { credential_configuration_id: 'membership', claims: CLAIMS } });
  if (created.status !== 201) throw new Error(`POST /offers: ${created.status} ${JSON.stringify(created.body)}`);
  return String(created.body['credential_offer_uri']);
};

/** The pre-authorized code flow as oid4vc-ts runs it; `fetched` collects the URLs it used. */
const issue = async (uri: string, fetched: string[] = []) => {
  const wallet = await libraryWallet(provider, { fetched: (url) => fetched.push(url) });
  const credentialOffer = await wallet.client.resolveCredentialOffer(uri);
  const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  const token = await wallet.client.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata, dpop: { signer: wallet.dpopSigner } });
  const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata });
  const proof = await wallet.client.createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId: 'membership', signer: wallet.holderSigner, nonce: c_nonce, clientId: wallet.clientId });
  const credentials = await wallet.client.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId: 'membership',
    proofs: { jwt: [proof.jwt] },
    dpop: token.dpop!,
  });
  const credential = (credentials.credentialResponse.credentials?.[0] as { credential?: unknown } | undefined)?.credential;
  if (typeof credential !== 'string') throw new Error('no credential in the answer');
  return { credential, credentialOffer, issuerMetadata, holder: wallet.holderKey };
};

const holderOf = async (key: WalletKey): Promise<Holder> => ({
  keys: { privateKey: key.privateKey, publicKey: (await importJWK(key.publicJwk, 'ES256')) as CryptoKey },
  publicJwk: key.publicJwk,
});

const queryFor = (vct: string) => ({ credentials: [{ id: 'card', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }] });

/** Presents `credential` to `tenant`'s verifier through the wallet simulator; the request object the wallet fetched, and the presentation's last event. */
const present = async (tenant: Tenant, credential: string, holder: WalletKey, dcqlQuery: unknown = queryFor(tenant.vct)) => {
  const created = (await expect(201, call(tenant, '/oidc4vp', { method: 'POST', body: { dcql_query: dcqlQuery } }))) as unknown as Created;
  const request = await fetchAuthorizationRequest(tenant.at.endpoints, created.cross_device_request_uri);
  const posted = await answer(tenant.at.endpoints, request, { card: { credential: holdCredential(credential), holder: await holderOf(holder) } });
  const read = await tenant.at.service.service.store.readStream(presentationStream(created.state));
  const last = read._tag === 'Found' ? read.events.at(-1) : undefined;
  return { state: created.state, request, posted, last: last?.type, errorDetails: (last?.data as { errorDetails?: string } | undefined)?.errorDetails };
};

test('two onboarded tenants issue under their own credential_issuer, found by the path-inserted well-known URL; each credential chains to the tenant\'s own certificate with iss its identifier', async (t) => {
  for (const [tenant, other] of [[bank, city], [city, bank]] as const) {
    t.is(tenant.issuerKey.data['state'], 'active');
    const fetched: string[] = [];
    const { credential, credentialOffer, issuerMetadata } = await issue(await offerUri(tenant), fetched);
    t.is(credentialOffer.credential_issuer, tenant.identifier);
    t.is(issuerMetadata.credentialIssuer.credential_issuer, tenant.identifier);
    t.true(fetched.includes(`${h.service.config.publicUrl}/.well-known/openid-credential-issuer/issuers/${tenant.tenantId}`), 'metadata at the path-inserted URL');
    const verified = await verifyIssuedCredential(h.service, credential);
    t.is(verified.payload['iss'], tenant.identifier);
    t.is(verified.payload['vct'], tenant.vct);
    t.true(verified.leaf.equal(leafOf(tenant.issuerKey)), 'signed by the tenant\'s own activated key');
    t.false(verified.leaf.equal(leafOf(other.issuerKey)));
  }
});

test('each tenant\'s request object verifies under its own x509_hash client id, and a presentation of its credential through the wallet simulator is FULFILLED', async (t) => {
  for (const [tenant, other] of [[bank, city], [city, bank]] as const) {
    const { credential, holder } = await issue(await offerUri(tenant));
    const { request, posted, last } = await present(tenant, credential, holder);
    t.is(request.clientId, x509HashClientId(leafOf(tenant.accessKey)), 'the wallet simulator verified the request object under the tenant\'s own client id');
    t.not(request.clientId, x509HashClientId(leafOf(other.accessKey)));
    t.is(posted.status, 200);
    t.is(last, 'PresentationFulfilled');
  }
});

test('a configuration changed with If-Match applies to new offers only; a stale If-Match is 412 and changes nothing', async (t) => {
  const tenant = await onboard('university');
  const before = await offerUri(tenant);
  const changed = await expect(200, call(tenant, `/credential-configurations/${tenant.configuration.id}`, { method: 'PUT', ifMatch: tenant.configuration.etag, body: { data: membership('urn:example:university:membership:2') } }));
  t.is(changed.revision, 2);
  const stale = await call(tenant, `/credential-configurations/${tenant.configuration.id}`, { method: 'PUT', ifMatch: tenant.configuration.etag, body: { data: membership('urn:example:university:membership:3') } });
  t.is(stale.status, 412);
  t.is((await expect(200, call(tenant, `/credential-configurations/${tenant.configuration.id}`))).revision, 2);
  const after = await offerUri(tenant);
  t.is((await verifyIssuedCredential(h.service, (await issue(before)).credential)).payload['vct'], 'urn:example:university:membership:1', 'the offer made before issues the old revision');
  t.is((await verifyIssuedCredential(h.service, (await issue(after)).credential)).payload['vct'], 'urn:example:university:membership:2');
});

test('rotation through the routes: a new issuer key made, certified and activated signs new credentials; one issued before still passes its status check at a verifier; the retired key\'s history shows each step', async (t) => {
  const tenant = await onboard('insurer');
  const first = await issue(await offerUri(tenant));
  const retiredLeaf = leafOf(tenant.issuerKey);
  t.true((await verifyIssuedCredential(h.service, first.credential)).leaf.equal(retiredLeaf));

  const rotated = await activeKey(tenant, 'issuer');
  t.is(rotated.data['state'], 'active');
  const second = await verifyIssuedCredential(h.service, (await issue(await offerUri(tenant))).credential);
  t.true(second.leaf.equal(leafOf(rotated)), 'the new credential is signed by the new key');
  t.false(second.leaf.equal(retiredLeaf));

  // The first credential at the tenant's verifier: its status list (now signed by the new key) says VALID.
  const presented = await present(tenant, first.credential, first.holder);
  t.is(presented.posted.status, 200);
  t.is(presented.last, 'PresentationFulfilled');

  const retired = await expect(200, call(tenant, `/signing-keys/${tenant.issuerKey.id}`));
  t.like(retired.data, { state: 'retired', replaced_by: rotated.id });
  const history = (await call(tenant, `/signing-keys/${tenant.issuerKey.id}/history`)).body as { items: Resource[] };
  t.deepEqual(history.items.map((e) => e.data['state']), ['ready', 'active', 'retired']);
});

test('after a rotation, a verifier that does not hold the tenant\'s CA as a trust anchor cannot tie the new list signer to a credential issued before: its status is unknown and the presentation fails', async (t) => {
  const tenant = await onboard('clinic', unanchored);
  const first = await issue(await offerUri(tenant));
  // (Not presented before the rotation: the verifier would keep the list signed by the old key in its cache.)
  await activeKey(tenant, 'issuer');
  const presented = await present(tenant, first.credential, first.holder);
  t.is(presented.posted.status, 400);
  t.is(presented.last, 'PresentationVerificationFailed');
  t.regex(presented.errorDetails ?? '', /credential status unknown: status list .* is not signed by the credential's issuer/);
});

test('one tenant\'s signing key and configuration are 404 to another; a token from issuer A is refused at issuer B', async (t) => {
  for (const path of [`/signing-keys/${bank.issuerKey.id}`, `/signing-keys/${bank.accessKey.id}/history`, `/credential-configurations/${bank.configuration.id}`]) {
    t.is((await call(city, path)).status, 404, path);
  }
  t.is((await call(city, `/signing-keys/${bank.issuerKey.id}/activate`, { method: 'POST', ifMatch: bank.issuerKey.etag })).status, 404);
  t.is((await call(city, `/credential-configurations/${bank.configuration.id}`, { method: 'PUT', ifMatch: bank.configuration.etag, body: { data: membership('urn:example:city:stolen:1') } })).status, 404);

  // The bank's access token, at the city's credential endpoint.
  const publicFetch = documentedFetch('public');
  const uri = await offerUri(bank);
  const offer = (await (await publicFetch(new URL(uri).searchParams.get('credential_offer_uri')!)).json()) as { grants: Record<string, { 'pre-authorized_code': string }> };
  const code = offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code'];
  const dpopKey = await newWalletKey();
  const tokenAt = `${bank.identifier}/oidc4vci/token`;
  const token = (await (await publicFetch(tokenAt, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: await dpopProof(dpopKey, { htm: 'POST', htu: tokenAt }) },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code }).toString(),
  })).json()) as { access_token: string };
  t.truthy(token.access_token);
  const credentialAt = `${city.identifier}/oidc4vci/credential`;
  const refused = await publicFetch(credentialAt, {
    method: 'POST',
    headers: { ...json, Authorization: `DPoP ${token.access_token}`, DPoP: await dpopProof(dpopKey, { htm: 'POST', htu: credentialAt, accessToken: token.access_token }) },
    body: JSON.stringify({ credential_configuration_id: 'membership', proofs: { jwt: ['x.y.z'] } }),
  });
  t.is(refused.status, 401);
  t.is(((await refused.json()) as { error: string }).error, 'invalid_token');
});

test('the wallet simulator follows a tenant issuer\'s metadata: issuer from the offer, metadata at the path-inserted URLs, every endpoint the metadata names', async (t) => {
  const fetched: string[] = [];
  const transport = walletFetch(h.endpoints);
  const fetch: Fetch = (url, init) => {
    fetched.push(url);
    return transport(url, init);
  };
  const offer = (await (await fetch(new URL(await offerUri(city)).searchParams.get('credential_offer_uri')!)).json()) as CredentialOffer;
  t.is(offer.credential_issuer, city.identifier);
  const endpoints = await discoverIssuer(fetch, offer.credential_issuer);
  const base = h.service.config.publicUrl;
  t.like(endpoints, {
    metadataUrl: `${base}/.well-known/openid-credential-issuer/issuers/${city.tenantId}`,
    authorizationServer: city.identifier,
    tokenEndpoint: `${city.identifier}/oidc4vci/token`,
    credentialEndpoint: `${city.identifier}/oidc4vci/credential`,
    nonceEndpoint: `${city.identifier}/oidc4vci/nonce`,
  });
  const wallet = new IssuanceWallet(endpoints, fetch, { dpop: await newWalletKey(), holder: await newWalletKey() });
  const credential = await wallet.redeem(offer);
  t.is((await verifyIssuedCredential(h.service, credential)).payload['iss'], city.identifier);
  t.deepEqual(fetched.slice(1), [
    `${base}/.well-known/openid-credential-issuer/issuers/${city.tenantId}`,
    `${base}/.well-known/oauth-authorization-server/issuers/${city.tenantId}`,
    `${city.identifier}/oidc4vci/token`,
    `${city.identifier}/oidc4vci/nonce`,
    `${city.identifier}/oidc4vci/credential`,
    `${base}/.well-known/openid-credential-issuer/issuers/${city.tenantId}`,
  ]);
});

test('the wallet simulator refuses issuer or authorization server metadata that names another identifier than the one it asked for', async (t) => {
  const transport = walletFetch(h.endpoints);
  // A network that answers the bank's documents for the city's.
  const lying: Fetch = (url, init) => transport(url.replace(city.tenantId, bank.tenantId), init);
  const refused = await t.throwsAsync(discoverIssuer(lying, city.identifier));
  t.regex(refused?.message ?? '', new RegExp(`openid-credential-issuer/issuers/${city.tenantId} is ${bank.identifier}'s, not ${city.identifier}'s`));
  // Only the authorization server's metadata swapped: refused the same way.
  const lyingServer: Fetch = (url, init) => transport(url.includes('oauth-authorization-server') ? url.replace(city.tenantId, bank.tenantId) : url, init);
  const refusedServer = await t.throwsAsync(discoverIssuer(lyingServer, city.identifier));
  t.regex(refusedServer?.message ?? '', new RegExp(`oauth-authorization-server/issuers/${city.tenantId} is ${bank.identifier}'s, not ${city.identifier}'s`));
});

test('registration: PUT /verifier with a real registration certificate; verifier_info carries it in the request object; with enforcement a query outside it is 422 naming the query and claim path, and one inside it is FULFILLED', async (t) => {
  const tenant = await onboard('pharmacy');
  const registered = { format: 'dc+sd-jwt', meta: { vct_values: [tenant.vct] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] };
  const jwt = await registrationCertificate({ credentials: [registered] });
  const initial = await expect(200, call(tenant, '/verifier'));
  t.is(initial.revision, 1, 'the verifier exists from the tenant\'s creation');
  const body = { registration_certificate: jwt, enforce_registration: true };
  const changed = await expect(200, call(tenant, '/verifier', { method: 'PUT', ifMatch: initial.etag, body }));
  t.like(changed, { revision: 2, data: { registration_certificate: jwt, enforce_registration: true, credentials: [registered] } });
  t.is((await call(tenant, '/verifier', { method: 'PUT', ifMatch: initial.etag, body })).status, 412, 'a stale If-Match');

  const outside = await call(tenant, '/oidc4vp', { method: 'POST', body: { dcql_query: { credentials: [{ ...queryFor(tenant.vct).credentials[0], claims: [{ path: ['given_name'] }, { path: ['member_number'] }] }] } } });
  t.is(outside.status, 422);
  t.deepEqual((outside.body['errors'] as { location: string; value: unknown }[]).map((e) => [e.location, e.value]), [['body.dcql_query.credentials[0].claims[1].path', ['member_number']]]);

  const { credential, holder } = await issue(await offerUri(tenant));
  const inside = await present(tenant, credential, holder);
  t.deepEqual(inside.request.payload['verifier_info'], [{ format: 'registration_cert', data: jwt }]);
  t.is(inside.request.clientId, x509HashClientId(leafOf(tenant.accessKey)));
  t.is(inside.posted.status, 200);
  t.is(inside.last, 'PresentationFulfilled');

  // Another tenant's request objects carry nothing of it.
  const other = await fetchAuthorizationRequest(h.endpoints, ((await expect(201, call(bank, '/oidc4vp', { method: 'POST', body: { dcql_query: queryFor(bank.vct) } }))) as unknown as Created).cross_device_request_uri);
  t.false('verifier_info' in other.payload);
});
