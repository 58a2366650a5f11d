// Each tenant its own credential issuer (issue 38), end to end over HTTP on loopback with an
// independent wallet library (oid4vc-ts): two tenants, each with a real development chain whose
// leaf names its credential issuer identifier and its own configurations, given to the service
// through its ports (startService's tenantIdentity seam: TenantSigningKeys, TenantConfigurations
// built here). The library finds each issuer by the path-inserted well-known URL; credentials
// chain to each tenant's own CA with `iss` its identifier; one issuer's codes, tokens and nonces
// are refused at another's; a configuration changed applies to new offers only; after a key
// rotation new credentials and status lists are signed by the new key and older credentials still
// pass their status check.
import test from 'ava';
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { setGlobalConfig } from '@openid4vc/oauth2';
import { isRight } from 'fp-ts/lib/Either.js';
import { createLeafCertificate, hostSubjectAltName, type CertifiedKey, type SubjectAltName } from '../src/crypto/certificates.js';
import { generateChain, signingIdentity, type SigningIdentity } from '../src/crypto/signingIdentity.js';
import { x509 } from '../src/crypto/x509.js';
import { DEFAULT_CONFIGURATIONS, parseCredentialConfigurations, type CredentialConfiguration, type SdJwtVcConfiguration } from '../src/issuance/configurations.js';
import type { RevisedConfiguration, TenantConfigurations } from '../src/issuance/tenantConfigurations.js';
import { statusAt } from '../src/statusList/statusList.js';
import { x5chainCertificates } from '../src/mdoc/cose.js';
import { checkIssuedMdoc, readIssuerSigned } from '../wallet/mdoc.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { tenantCredentialIssuer, type TenantSigningKeys } from '../src/tenantIdentity/ports.js';
import { verifyStatusListToken } from '../src/verification/status/statusListToken.js';
import { offerStream } from '../streams/offer.js';
import { newWalletKey } from '../wallet/keys.js';
import { createWalletProvider, type WalletProvider } from '../wallet/walletProvider.js';
import { keyWith, type TestKey } from './support/console.js';
import { documentedFetch } from './support/openapi.js';
import { startTestService, withReachablePublicUrl, type TestService } from './support/service.js';
import { PID_CLAIMS, verifyIssuedCredential } from './support/wallet/issuanceChecks.js';
import { libraryWallet } from './support/wallet/libraryWallet.js';
import { credentialRequest, keyProof, nonceAt, preAuthorizedCodeOf, tokenRequest } from './support/wallet/issuerRequests.js';

// What the tenants' own resources would hold: filled by the tests through these two ports.
const activeKeys = new Map<string, SigningIdentity>();
const currentConfigurations = new Map<string, Map<string, RevisedConfiguration>>();
const revisions = new Map<string, CredentialConfiguration>();
const tenantKeys: TenantSigningKeys = { active: async (tenantId, role) => (role === 'issuer' ? activeKeys.get(tenantId) : undefined) };
const tenantConfigurations: TenantConfigurations = {
  current: (tenantId) => currentConfigurations.get(tenantId) ?? new Map(),
  atRevision: (tenantId, id, revision) => revisions.get(`${tenantId} ${id} ${revision}`),
};

/** A new revision of the tenant's configuration, as PUT /credential-configurations/{id} would make it. */
const putConfiguration = (tenantId: string, configuration: CredentialConfiguration): number => {
  const current = currentConfigurations.get(tenantId) ?? new Map<string, RevisedConfiguration>();
  const revision = (current.get(configuration.id)?.revision ?? 0) + 1;
  current.set(configuration.id, { configuration, revision });
  currentConfigurations.set(tenantId, current);
  revisions.set(`${tenantId} ${configuration.id} ${revision}`, configuration);
  return revision;
};

const PID = parseCredentialConfigurations(DEFAULT_CONFIGURATIONS, 'built-in').find((c): c is SdJwtVcConfiguration => c.id === 'pid' && c.format !== 'mso_mdoc')!;
const pidOf = (vct: string): CredentialConfiguration => ({ ...PID, vct });

interface Tenant extends TestKey {
  readonly identifier: string;
  readonly ca: CertifiedKey;
  identity: SigningIdentity;
}

/** A leaf naming the credential issuer identifier (URI and host), under `ca` or a new development CA; the chain leaf first, CA after. */
const issuerIdentity = async (identifier: string, ca?: CertifiedKey): Promise<{ readonly ca: CertifiedKey; readonly identity: SigningIdentity }> => {
  const names: SubjectAltName[] = [{ type: 'url', value: identifier }, hostSubjectAltName(identifier)];
  const chain = ca ? { ca, leaf: await createLeafCertificate(ca, { commonName: `Issuer ${identifier}`, country: 'DE', subjectAltNames: names }) } : await generateChain(`Issuer ${identifier}`, names);
  return { ca: chain.ca, identity: await signingIdentity([chain.leaf.certificate, chain.ca.certificate], chain.leaf.keys.privateKey) };
};

let service: TestService;
let provider: WalletProvider;
let bank: Tenant;
let city: Tenant;

const newTenant = async (name: string, vct: string): Promise<Tenant> => {
  const key = await keyWith(service, ['connector'], name);
  const identifier = tenantCredentialIssuer(service.config.publicUrl, key.tenantId);
  const { ca, identity } = await issuerIdentity(identifier);
  activeKeys.set(key.tenantId, identity);
  putConfiguration(key.tenantId, pidOf(vct));
  return { ...key, identifier, ca, identity };
};

test.before(async () => {
  setGlobalConfig({ allowInsecureUrls: true });
  provider = await createWalletProvider();
  service = await withReachablePublicUrl((env) =>
    startTestService({ env: { ...env, WALLET_PROVIDER_TRUST_ANCHORS: provider.anchor }, tenantIdentity: { tenantKeys, tenantConfigurations } }),
  );
  bank = await newTenant('bank', 'urn:example:bank:pid:1');
  city = await newTenant('city', 'urn:example:city:pid:1');
});

test.after.always(async () => {
  await service?.cleanup();
});

const publicFetch = documentedFetch('public');

const createOffer = (tenant: TestKey, body: unknown = { credential_configuration_id: 'pid', claims: PID_CLAIMS }) =>
  service.management('/offers', { method: 'POST', key: tenant.secret, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const offerUri = async (tenant: TestKey, request?: unknown): Promise<{ readonly offerId: string; readonly uri: string }> => {
  const response = await createOffer(tenant, request);
  if (response.status !== 201) throw new Error(`POST /offers: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { offer_id: string; credential_offer_uri: string };
  return { offerId: body.offer_id, uri: body.credential_offer_uri };
};

/** The pre-authorized code flow as oid4vc-ts runs it; `fetched` collects the URLs it used. */
const issueWithLibrary = async (credentialOfferUri: string, fetched: string[] = [], credentialConfigurationId = 'pid') => {
  const wallet = await libraryWallet(provider, { fetched: (url) => fetched.push(url) });
  const credentialOffer = await wallet.client.resolveCredentialOffer(credentialOfferUri);
  const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  const token = await wallet.client.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata, dpop: { signer: wallet.dpopSigner } });
  const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata });
  const proof = await wallet.client.createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId, signer: wallet.holderSigner, nonce: c_nonce, clientId: wallet.clientId });
  const credentials = await wallet.client.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId,
    proofs: { jwt: [proof.jwt] },
    dpop: token.dpop!,
  });
  const credential = (credentials.credentialResponse.credentials?.[0] as { credential?: unknown } | undefined)?.credential;
  if (typeof credential !== 'string') throw new Error('no credential in the answer');
  return { credential, credentialOffer, issuerMetadata, holder: wallet.holderKey };
};

const leafOf = (credential: string) => new x509.X509Certificate(Buffer.from((decodeProtectedHeader(credential.split('~')[0]!) as { x5c: string[] }).x5c[0]!, 'base64'));

test('two tenants issue under their own credential_issuer, found by the path-inserted well-known URL, credentials chaining to each tenant\'s own CA', async (t) => {
  for (const tenant of [bank, city]) {
    const { uri } = await offerUri(tenant);
    t.true(decodeURIComponent(uri).includes(`${tenant.identifier}/oidc4vci/offers/`), 'the offer is served under the tenant\'s issuer');
    const fetched: string[] = [];
    const { credential, credentialOffer, issuerMetadata } = await issueWithLibrary(uri, fetched);
    t.is(credentialOffer.credential_issuer, tenant.identifier);
    t.is(issuerMetadata.credentialIssuer.credential_issuer, tenant.identifier);
    t.true(fetched.includes(`${service.config.publicUrl}/.well-known/openid-credential-issuer/issuers/${tenant.tenantId}`), 'metadata at the path-inserted URL');
    t.true(fetched.includes(`${tenant.identifier}/oidc4vci/credential`));

    const verified = await verifyIssuedCredential(service, credential);
    t.is(verified.payload['iss'], tenant.identifier);
    t.is(verified.payload['vct'], tenant === bank ? 'urn:example:bank:pid:1' : 'urn:example:city:pid:1');
    t.true(verified.leaf.equal(tenant.identity.chain[0]!), 'signed by the tenant\'s own key');
    t.true(await verified.leaf.verify({ publicKey: tenant.ca.certificate.publicKey, signatureOnly: true }), 'its leaf chains to the tenant\'s CA');
    const other = tenant === bank ? city : bank;
    t.false(await verified.leaf.verify({ publicKey: other.ca.certificate.publicKey, signatureOnly: true }));
    const status = (verified.payload['status'] as { status_list: { uri: string } }).status_list;
    t.true(status.uri.startsWith(`${tenant.identifier}/status-lists/`), 'the status list is the issuer\'s own');
  }
});

test('a tenant\'s issuer metadata: at the path-inserted and the appended URL alike; RFC 8414 authorization server metadata both ways; 404 for a tenant without an issuer of its own', async (t) => {
  const base = service.config.publicUrl;
  const inserted = await publicFetch(`${base}/.well-known/openid-credential-issuer/issuers/${bank.tenantId}`);
  t.is(inserted.status, 200);
  const metadata = (await inserted.json()) as { credential_issuer: string; credential_endpoint: string; nonce_endpoint: string; credential_configurations_supported: Record<string, { vct?: string }> };
  t.is(metadata.credential_issuer, bank.identifier);
  t.is(metadata.credential_endpoint, `${bank.identifier}/oidc4vci/credential`);
  t.is(metadata.nonce_endpoint, `${bank.identifier}/oidc4vci/nonce`);
  t.deepEqual(Object.keys(metadata.credential_configurations_supported), ['pid']);
  const appended = await publicFetch(`${bank.identifier}/.well-known/openid-credential-issuer`);
  t.deepEqual(await appended.json(), metadata);

  for (const url of [`${base}/.well-known/oauth-authorization-server/issuers/${bank.tenantId}`, `${bank.identifier}/.well-known/oauth-authorization-server`]) {
    const server = (await (await publicFetch(url)).json()) as { issuer: string; token_endpoint: string; pushed_authorization_request_endpoint: string };
    t.is(server.issuer, bank.identifier);
    t.is(server.token_endpoint, `${bank.identifier}/oidc4vci/token`);
    t.is(server.pushed_authorization_request_endpoint, `${bank.identifier}/oidc4vci/par`);
  }
  // The deployment's issuer is where it was.
  const deployment = (await (await publicFetch(`${base}/.well-known/openid-credential-issuer`)).json()) as { credential_issuer: string };
  t.is(deployment.credential_issuer, base);

  // The bootstrap tenant has no key of its own; a tenant with a key but no configuration has no issuer either.
  const keyOnly = await keyWith(service, ['connector'], 'key-only');
  activeKeys.set(keyOnly.tenantId, (await issuerIdentity(tenantCredentialIssuer(base, keyOnly.tenantId))).identity);
  for (const tenantId of [BOOTSTRAP_TENANT_ID, keyOnly.tenantId, 'no-such-tenant']) {
    for (const path of [`/.well-known/openid-credential-issuer/issuers/${tenantId}`, `/issuers/${tenantId}/.well-known/openid-credential-issuer`, `/.well-known/oauth-authorization-server/issuers/${tenantId}`, `/issuers/${tenantId}/oidc4vci/nonce`]) {
      const response = await publicFetch(`${base}${path}`, path.endsWith('nonce') ? { method: 'POST' } : {});
      t.is(response.status, 404, path);
      t.is(((await response.json()) as { error: string }).error, 'not_found');
    }
  }
  // Its offers are the deployment's issuer's, as before.
  const offered = (await (await createOffer(keyOnly)).json()) as { credential_offer_uri: string };
  t.true(decodeURIComponent(offered.credential_offer_uri).includes(`${base}/oidc4vci/offers/`));
});

/** The offer's pre-authorized code, as its credential_offer_uri gives it. */
const eventTypes = async (offerId: string): Promise<string[]> => {
  const read = await service.service.store.readStream(offerStream(offerId));
  return read._tag === 'Found' ? read.events.map((e) => e.type) : [];
};

test('one issuer\'s pre-authorized code, access token and c_nonce are refused at another issuer\'s endpoints, and nothing is appended', async (t) => {
  const deployment = service.config.publicUrl;
  const { offerId, uri } = await offerUri(bank);
  const code = await preAuthorizedCodeOf(uri);
  const dpopKey = await newWalletKey();
  for (const elsewhere of [city.identifier, deployment]) {
    const refused = await tokenRequest(elsewhere, code, dpopKey);
    t.is(refused.status, 400, elsewhere);
    t.is(((await refused.json()) as { error: string }).error, 'invalid_grant');
  }
  t.deepEqual(await eventTypes(offerId), ['OfferCreated']);
  // The offer itself is not found at another issuer either.
  const offerId_ = new URL(new URL(uri).searchParams.get('credential_offer_uri')!).pathname.split('/').pop()!;
  t.is((await publicFetch(`${city.identifier}/oidc4vci/offers/${offerId_}`)).status, 404);
  // DPoP's htu must be this issuer's token endpoint.
  const wrongHtu = await tokenRequest(bank.identifier, code, dpopKey, `${deployment}/oidc4vci/token`);
  t.is(wrongHtu.status, 400);
  t.is(((await wrongHtu.json()) as { error: string }).error, 'invalid_dpop_proof');

  const token = (await (await tokenRequest(bank.identifier, code, dpopKey)).json()) as { access_token: string };
  t.truthy(token.access_token);
  const holder = await newWalletKey();
  const atCity = await credentialRequest(city.identifier, token.access_token, dpopKey, await keyProof(holder, city.identifier, await nonceAt(city.identifier)));
  t.is(atCity.status, 401);
  t.is(((await atCity.json()) as { error: string }).error, 'invalid_token');
  // At the right issuer: a c_nonce of another issuer is unknown, a proof for another audience refused.
  const cityNonce = await credentialRequest(bank.identifier, token.access_token, dpopKey, await keyProof(holder, bank.identifier, await nonceAt(city.identifier)));
  t.is(((await cityNonce.json()) as { error: string }).error, 'invalid_nonce');
  const deploymentNonce = await credentialRequest(bank.identifier, token.access_token, dpopKey, await keyProof(holder, bank.identifier, await nonceAt(deployment)));
  t.is(((await deploymentNonce.json()) as { error: string }).error, 'invalid_nonce');
  const wrongAudience = await credentialRequest(bank.identifier, token.access_token, dpopKey, await keyProof(holder, deployment, await nonceAt(bank.identifier)));
  t.is(((await wrongAudience.json()) as { error: string }).error, 'invalid_proof');
  t.deepEqual(await eventTypes(offerId), ['OfferCreated', 'PreAuthorizedCodeRedeemed']);

  const issued = await credentialRequest(bank.identifier, token.access_token, dpopKey, await keyProof(holder, bank.identifier, await nonceAt(bank.identifier)));
  t.is(issued.status, 200);
});

test('an offer is issued with the configuration revision it recorded: a change applies to new offers only; a deleted configuration takes no new offers', async (t) => {
  const tenant = await newTenant('university', 'urn:example:university:diploma:1');
  const before = await offerUri(tenant);
  t.is(putConfiguration(tenant.tenantId, pidOf('urn:example:university:diploma:2')), 2);
  const after = await offerUri(tenant);
  const created = await service.service.store.readStream(offerStream(before.offerId));
  t.like(created._tag === 'Found' ? created.events[0]!.data : {}, { credentialIssuer: tenant.identifier, configurationRevision: 1 });

  const metadata = (await (await publicFetch(`${service.config.publicUrl}/.well-known/openid-credential-issuer/issuers/${tenant.tenantId}`)).json()) as {
    credential_configurations_supported: Record<string, { vct?: string }>;
  };
  t.is(metadata.credential_configurations_supported['pid']?.vct, 'urn:example:university:diploma:2', 'the metadata shows the current revision');

  const old = await verifyIssuedCredential(service, (await issueWithLibrary(before.uri)).credential);
  t.is(old.payload['vct'], 'urn:example:university:diploma:1');
  const current = await verifyIssuedCredential(service, (await issueWithLibrary(after.uri)).credential);
  t.is(current.payload['vct'], 'urn:example:university:diploma:2');

  // Deleted: no new offer names it, as an unknown id is refused; a second configuration keeps the issuer.
  putConfiguration(tenant.tenantId, { ...pidOf('urn:example:university:other:1'), id: 'other' });
  currentConfigurations.get(tenant.tenantId)!.delete('pid');
  const refused = await createOffer(tenant);
  t.true([400, 422].includes(refused.status));
  t.regex(JSON.stringify(await refused.json()), /pid/);
});

test('rotation: after a new issuer key is activated, new credentials and status list tokens are signed by it; a credential issued before still passes its status check; the retired key signs nothing', async (t) => {
  const tenant = await newTenant('insurer', 'urn:example:insurer:card:1');
  const first = await issueWithLibrary((await offerUri(tenant)).uri);
  const firstVerified = await verifyIssuedCredential(service, first.credential);
  const retired = tenant.identity.chain[0]!;
  t.true(firstVerified.leaf.equal(retired));

  const rotated = await issuerIdentity(tenant.identifier, tenant.ca);
  activeKeys.set(tenant.tenantId, rotated.identity);
  const active = rotated.identity.chain[0]!;

  const second = await issueWithLibrary((await offerUri(tenant)).uri);
  t.true(leafOf(second.credential).equal(active), 'the new credential is signed by the new key');
  await t.throwsAsync(compactVerify(second.credential.split('~')[0]!, await importX509(retired.toString('pem'), 'ES256')));

  // The first credential's status, as a verifier checks it: the token at its uri, now signed by the new key under the same CA.
  const status = (firstVerified.payload['status'] as { status_list: { uri: string; idx: number } }).status_list;
  const response = await publicFetch(status.uri, { headers: { Accept: 'application/statuslist+jwt' } });
  t.is(response.status, 200);
  const jwt = await response.text();
  const verified = await verifyStatusListToken(jwt, { uri: status.uri, now: new Date(), maxBytes: 1 << 20 });
  if (!isRight(verified)) return t.fail(verified.left);
  const [signer] = verified.right.chain;
  t.true(signer!.equal(active), 'the status list token is signed by the new key');
  // Chaining to the same CA as the credential's own leaf (the anchor a verifier holds; x5c leaves it out).
  t.true(await signer!.verify({ publicKey: tenant.ca.certificate.publicKey, signatureOnly: true }));
  t.true(await firstVerified.leaf.verify({ publicKey: tenant.ca.certificate.publicKey, signatureOnly: true }));
  t.is(statusAt(verified.right.list, status.idx), 0, 'VALID');
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { iss: string; sub: string };
  t.is(payload.iss, tenant.identifier);
  t.is(payload.sub, status.uri);
  await t.throwsAsync(compactVerify(jwt, await importX509(retired.toString('pem'), 'ES256')), undefined, 'the retired key signed nothing');
});

test('an mdoc of a tenant\'s own issuer is signed with its key, the tenant\'s chain in x5chain', async (t) => {
  const tenant = await newTenant('licensing', 'urn:example:licensing:unused:1');
  const mdl = parseCredentialConfigurations(DEFAULT_CONFIGURATIONS, 'built-in').find((c) => c.id === 'mdl')!;
  putConfiguration(tenant.tenantId, mdl);
  const NS = 'org.iso.18013.5.1';
  const claims = {
    [NS]: {
      family_name: 'Mustermann', given_name: 'Erika', birth_date: '1964-08-12', issue_date: '2024-01-02', expiry_date: '2034-01-01', issuing_country: 'DE',
      issuing_authority: 'Kraftfahrt-Bundesamt', document_number: 'B072RRE2I55', portrait: Buffer.from([0xff, 0xd8, 0xff, 0xe0]).toString('base64url'),
      driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2024-01-02', expiry_date: '2034-01-01' }], un_distinguishing_sign: 'D',
    },
  };
  const { uri } = await offerUri(tenant, { credential_configuration_id: 'mdl', claims });
  const issued = await issueWithLibrary(uri, [], 'mdl');
  t.deepEqual(await checkIssuedMdoc(issued.credential, { docType: 'org.iso.18013.5.1.mDL', holder: issued.holder.publicJwk }), claims);
  const chain = x5chainCertificates(readIssuerSigned(issued.credential).issuerAuth, 'issuerAuth');
  if (!isRight(chain)) return t.fail(chain.left);
  t.true(chain.right[0]!.equal(tenant.identity.chain[0]!), 'the document signer is the tenant\'s key');
  t.true(await chain.right[0]!.verify({ publicKey: tenant.ca.certificate.publicKey, signatureOnly: true }));
});

test('the authorization code flow at a tenant\'s issuer: its request_uri and code are refused at another issuer and stay unspent; the redirect names the tenant\'s issuer', async (t) => {
  const LOGIN = 'https://login.bank.example/authenticate';
  const REDIRECT_URI = 'https://wallet.example/callback';
  const { offerId, uri } = await offerUri(bank, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code', authentication_url: LOGIN });
  const wallet = await libraryWallet(provider);
  const credentialOffer = await wallet.client.resolveCredentialOffer(uri);
  const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  const initiated = await wallet.oauth2.initiateAuthorization({
    authorizationServerMetadata: issuerMetadata.authorizationServers[0]!,
    clientId: wallet.clientId,
    redirectUri: REDIRECT_URI,
    scope: 'pid',
    state: 'wallet-state',
    additionalRequestPayload: { issuer_state: credentialOffer.grants?.authorization_code?.issuer_state },
  });
  t.true(initiated.authorizationRequestUrl.startsWith(`${bank.identifier}/oidc4vci/authorize?`));

  // Its request_uri at another issuer's authorization endpoint: refused, not spent.
  const atCity = await publicFetch(initiated.authorizationRequestUrl.replace(bank.identifier, city.identifier), { redirect: 'manual' });
  t.is(atCity.status, 400);
  t.deepEqual(await eventTypes(offerId), ['OfferCreated', 'AuthorizationRequestPushed']);
  const visit = await publicFetch(initiated.authorizationRequestUrl, { redirect: 'manual' });
  t.is(visit.status, 302);
  const authorizationId = new URL(visit.headers.get('location') ?? '').searchParams.get('authorization_id') ?? '';

  const completed = await service.management(`/authorizations/${encodeURIComponent(authorizationId)}/complete`, {
    method: 'POST',
    key: bank.secret,
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  const redirectTo = ((await completed.json()) as { redirect_to: string }).redirect_to;
  t.is(new URL(redirectTo).searchParams.get('iss'), bank.identifier, 'RFC 9207: the issuer the wallet pushed to');
  const response = wallet.client.parseAndVerifyAuthorizationResponseRedirectUrl({ url: redirectTo, authorizationServerMetadata: issuerMetadata.authorizationServers[0]! });
  const code = response.code!;

  // The code at another issuer's token endpoint (as the library goes there, attestation and DPoP nonce included): invalid_grant.
  const cityMetadata = await wallet.client.resolveIssuerMetadata(city.identifier);
  const redeemAt = (metadata: typeof issuerMetadata) =>
    wallet.client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata: metadata,
      authorizationCode: code,
      pkceCodeVerifier: initiated.pkce?.codeVerifier,
      redirectUri: REDIRECT_URI,
      dpop: { signer: wallet.dpopSigner },
    });
  const refused = await t.throwsAsync(redeemAt(cityMetadata));
  t.regex(JSON.stringify((refused as { errorResponse?: unknown }).errorResponse ?? refused?.message), /invalid_grant/);
  t.false((await eventTypes(offerId)).includes('AuthorizationCodeRedeemed'));
  const token = await redeemAt(issuerMetadata);
  t.is(token.accessTokenResponse.token_type, 'DPoP');
});

test('a tenant\'s status lists are its own: revoking its credential changes its list only; lists of the same number at another issuer are apart; 404 without an issuer key', async (t) => {
  const tenant = await newTenant('registry', 'urn:example:registry:card:1');
  const { offerId, uri } = await offerUri(tenant);
  const verified = await verifyIssuedCredential(service, (await issueWithLibrary(uri)).credential);
  const status = (verified.payload['status'] as { status_list: { uri: string; idx: number } }).status_list;
  t.is(status.uri, `${tenant.identifier}/status-lists/1`, 'a new issuer starts its own list 1');

  const revoked = await service.management(`/offers/${offerId}/credential-status`, { method: 'PUT', key: tenant.secret, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status: 'revoked' }) });
  t.is(revoked.status, 200);
  t.like(await revoked.json(), { status: 'revoked', statusReferences: [{ uri: status.uri, idx: status.idx }] });
  const listAt = async (listUri: string) => {
    const jwt = await (await publicFetch(listUri, { headers: { Accept: 'application/statuslist+jwt' } })).text();
    const checked = await verifyStatusListToken(jwt, { uri: listUri, now: new Date(), maxBytes: 1 << 20 });
    if (!isRight(checked)) throw new Error(checked.left);
    return { list: checked.right.list, signer: checked.right.chain[0]!, iss: (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { iss: string }).iss };
  };
  const own = await listAt(status.uri);
  t.is(statusAt(own.list, status.idx), 1, 'INVALID in the tenant\'s list');
  t.true(own.signer.equal(tenant.identity.chain[0]!));
  t.is(own.iss, tenant.identifier);
  // The deployment's list 1 and another tenant's are other lists, signed by their own issuers.
  const deploymentOffer = (await (await service.management('/offers', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS }) })).json()) as { credential_offer_uri: string };
  await issueWithLibrary(deploymentOffer.credential_offer_uri);
  const deployment = await listAt(`${service.config.publicUrl}/status-lists/1`);
  t.is(deployment.iss, service.config.publicUrl);
  t.false(deployment.signer.equal(tenant.identity.chain[0]!));
  t.is(statusAt(deployment.list, status.idx), 0);
  t.is((await publicFetch(`${service.config.publicUrl}/issuers/${BOOTSTRAP_TENANT_ID}/status-lists/1`)).status, 404);
});
