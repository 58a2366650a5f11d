// Each tenant its own verifier (issue 38), end to end over HTTP on loopback: two tenants whose
// access identities are real development chains and whose registration certificate is a real
// `rc-wrp+jwt` signed here, handed to the service through its ports (the `tenantIdentity` seam of
// startService, until the signing-key and /verifier resources fill them). Each tenant's request
// object is checked with jose (the wallet simulator) and with independent code (node:crypto's
// X509Certificate for the hash, @sd-jwt/crypto-nodejs for the ES256 signature); presentations
// are answered by the wallet simulator.
import test from 'ava';
import { createHash, X509Certificate } from 'node:crypto';
import { ES256 } from '@sd-jwt/crypto-nodejs';
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, SignJWT, type JWK } from 'jose';
import { x509HashClientId, x5cOf } from '../src/crypto/certificates.js';
import { generateChain, signingIdentity, type SigningIdentity } from '../src/crypto/signingIdentity.js';
import type { RegisteredCredential, VerifierRegistration } from '../src/tenantIdentity/ports.js';
import { loadVerifier } from '../src/verification/feature.js';
import { presentationStream } from '../streams/presentation.js';
import { keyWith, type TestKey } from './support/console.js';
import { PID_VCT, pidQuery, startVerificationHarness, type Created, type VerificationHarness } from './support/wallet/connector.js';
import { answer, fetchAuthorizationRequest } from './support/wallet/presentation.js';
import { ORIGIN } from './support/dcApi.js';

/** Each tenant's active access key, as the signing-key resources will hold it; tests rotate by replacing one. */
const accessKeys = new Map<string, SigningIdentity>();
const registrations = new Map<string, VerifierRegistration>();

let h: VerificationHarness;
let a: TestKey;
let b: TestKey;
let registrar: Awaited<ReturnType<typeof generateChain>>;

const accessIdentity = async (name: string): Promise<SigningIdentity> => {
  const chain = await generateChain(`${name} access certificate`, [{ type: 'dns', value: `${name}.example` }]);
  return signingIdentity([chain.leaf.certificate, chain.ca.certificate], chain.leaf.keys.privateKey);
};

/** A registration certificate (ETSI TS 119 475) issued by the test registrar: `typ` rc-wrp+jwt, its chain in x5c. */
const registrationCertificate = (name: string, credentials: readonly RegisteredCredential[]): Promise<string> =>
  new SignJWT({
    name,
    country: 'DE',
    purpose: [{ lang: 'en', content: `${name} checks who you are` }],
    credentials,
    entitlements: ['https://uri.etsi.org/19475/Entitlement/Service_Provider'],
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'rc-wrp+jwt', x5c: x5cOf([registrar.leaf.certificate]) })
    .setSubject(`DE-${name}`)
    .setIssuedAt()
    .setExpirationTime('1y')
    .sign(registrar.leaf.keys.privateKey);

/** Registers `tenantId` as the /verifier resource will: the certificate as given, its `credentials` parsed from it. */
const register = async (tenantId: string, credentials: readonly RegisteredCredential[], enforce: boolean): Promise<string> => {
  const jwt = await registrationCertificate(tenantId, credentials);
  registrations.set(tenantId, { registrationCertificate: jwt, credentials: decodeJwt(jwt)['credentials'] as RegisteredCredential[], enforce });
  return jwt;
};

const PID_REGISTERED: readonly RegisteredCredential[] = [
  { format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }, { path: ['address'] }] },
];

test.before(async () => {
  registrar = await generateChain('test registrar');
  h = await startVerificationHarness({}, {
    tenantIdentity: {
      tenantKeys: { active: async (tenantId, role) => (role === 'access' ? accessKeys.get(tenantId) : undefined) },
      verifierRegistrations: { of: (tenantId) => registrations.get(tenantId) },
    },
  });
  a = await keyWith(h.service, ['connector'], 'tenant A');
  b = await keyWith(h.service, ['connector'], 'tenant B');
  accessKeys.set(a.tenantId, await accessIdentity('tenant-a'));
  accessKeys.set(b.tenantId, await accessIdentity('tenant-b'));
  await register(a.tenantId, PID_REGISTERED, false);
});

test.after.always(async () => h?.close());

const create = async (key: TestKey | undefined, body: unknown): Promise<{ status: number; json: Record<string, unknown>; contentType: string | null }> => {
  const response = await h.service.management('/oidc4vp', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    ...(key ? { key: key.secret } : {}),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown>, contentType: response.headers.get('content-type') };
};

const request = async (key: TestKey | undefined, body: unknown): Promise<Created> => {
  const created = await create(key, body);
  if (created.status !== 201) throw new Error(`POST /oidc4vp answered ${created.status}: ${JSON.stringify(created.json)}`);
  return created.json as unknown as Created;
};

const clientIdOf = (tenant: TestKey): string => x509HashClientId(accessKeys.get(tenant.tenantId)!.chain[0]!);

const lastEvent = async (state: string): Promise<string | undefined> => {
  const read = await h.service.service.store.readStream(presentationStream(state));
  return read._tag === 'Found' ? read.events.at(-1)?.type : undefined;
};

/** The checks a wallet makes, by code other than jose's: the x5c leaf's SHA-256 is the client id, and it signed the object. */
const independentlyVerified = async (jwt: string): Promise<{ clientId: string; payload: Record<string, unknown> }> => {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const x5c = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { x5c: string[] }).x5c;
  const leaf = new X509Certificate(Buffer.from(x5c[0]!, 'base64'));
  const verify = await ES256.getVerifier(leaf.publicKey.export({ format: 'jwk' }));
  if (!(await verify(`${header}.${payload}`, signature))) throw new Error('the signature does not verify with the x5c leaf');
  return { clientId: `x509_hash:${createHash('sha256').update(leaf.raw).digest('base64url')}`, payload: JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown> };
};

for (const tenant of ['A', 'B'] as const) {
  test(`tenant ${tenant}'s request object is signed with its own access key and verifies under its own x509_hash client id, with jose and independently`, async (t) => {
    const key = tenant === 'A' ? a : b;
    const other = tenant === 'A' ? b : a;
    const created = await request(key, { dcql_query: pidQuery() });
    const fetched = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
    t.is(fetched.clientId, clientIdOf(key));
    t.not(fetched.clientId, clientIdOf(other));
    const independent = await independentlyVerified(fetched.jwt);
    t.is(independent.clientId, clientIdOf(key));
    t.is(independent.payload['client_id'], clientIdOf(key));
    // Isolation: the other tenant's key did not sign it.
    const otherKey = await importJWK(accessKeys.get(other.tenantId)!.publicJwk as JWK, 'ES256');
    await t.throwsAsync(compactVerify(fetched.jwt, otherKey));
    t.deepEqual(decodeProtectedHeader(fetched.jwt).x5c, [...accessKeys.get(key.tenantId)!.x5c]);
  });

  test(`tenant ${tenant}: a presentation through the wallet simulator is FULFILLED under the tenant's client id`, async (t) => {
    const key = tenant === 'A' ? a : b;
    const created = await request(key, { dcql_query: pidQuery() });
    const fetched = await fetchAuthorizationRequest(h.endpoints, created.same_device_request_uri);
    const posted = await answer(h.endpoints, fetched, { pid: { credential: await h.pid(), holder: h.holder } });
    t.is(posted.status, 200);
    t.is(await lastEvent(created.state), 'PresentationFulfilled');
  });
}

test('a tenant without an access key of its own is served by the deployment verifier, as before', async (t) => {
  const created = await request(undefined, { dcql_query: pidQuery() });
  const fetched = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
  const deployment = await loadVerifier(h.service.service.context);
  t.is(fetched.clientId, deployment.clientId);
  t.is((await independentlyVerified(fetched.jwt)).clientId, deployment.clientId);
  t.false([clientIdOf(a), clientIdOf(b)].includes(fetched.clientId));
  t.false('verifier_info' in fetched.payload);
  t.is((await answer(h.endpoints, fetched, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  t.is(await lastEvent(created.state), 'PresentationFulfilled');
});

test('verifier_info carries the registration certificate (format registration_cert) when the tenant is registered, and is absent otherwise', async (t) => {
  const registered = await fetchAuthorizationRequest(h.endpoints, (await request(a, { dcql_query: pidQuery() })).cross_device_request_uri);
  t.deepEqual(registered.payload['verifier_info'], [{ format: 'registration_cert', data: registrations.get(a.tenantId)!.registrationCertificate }]);
  const certificate = (registered.payload['verifier_info'] as { data: string }[])[0]!.data;
  t.is(decodeProtectedHeader(certificate).typ, 'rc-wrp+jwt');
  const unregistered = await fetchAuthorizationRequest(h.endpoints, (await request(b, { dcql_query: pidQuery() })).cross_device_request_uri);
  t.false('verifier_info' in unregistered.payload);
});

test("the DC API's signed request is the tenant's: its client id, its key, its verifier_info", async (t) => {
  const created = await create(a, { flow_type: 'dc_api', expected_origins: [ORIGIN], dcql_query: pidQuery() });
  t.is(created.status, 201);
  const jwt = String((created.json['dc_api_request'] as { data: { request: string } }).data.request);
  const { clientId, payload } = await independentlyVerified(jwt);
  t.is(clientId, clientIdOf(a));
  t.is(payload['client_id'], clientIdOf(a));
  t.deepEqual(payload['verifier_info'], [{ format: 'registration_cert', data: registrations.get(a.tenantId)!.registrationCertificate }]);
});

test('after a rotation, a request made under the retired key is refused its request object; one already fetched is still answered under its client id', async (t) => {
  const tenant = await keyWith(h.service, ['connector'], 'tenant rotating');
  accessKeys.set(tenant.tenantId, await accessIdentity('tenant-rotating'));
  const fetchedBefore = await request(tenant, { dcql_query: pidQuery() });
  const request1 = await fetchAuthorizationRequest(h.endpoints, fetchedBefore.cross_device_request_uri);
  const notFetched = await request(tenant, { dcql_query: pidQuery() });
  const retired = clientIdOf(tenant);
  accessKeys.set(tenant.tenantId, await accessIdentity('tenant-rotating-2'));
  t.not(clientIdOf(tenant), retired);
  // Nothing signs for the old client id: the request URI answers an OAuth error, HEAD too, and records nothing.
  const refused = await h.service.wallet(`/oidc4vp/${notFetched.state}/request?flow_type=cross-device`);
  t.is(refused.status, 400);
  t.like(await refused.json(), { error: 'invalid_request' });
  t.is((await h.service.wallet(`/oidc4vp/${notFetched.state}/request?flow_type=cross-device`, { method: 'HEAD' })).status, 400);
  t.is(await lastEvent(notFetched.state), 'PresentationRequested');
  // The answer to the request fetched before is bound to the recorded client id, and it still holds.
  t.is((await answer(h.endpoints, request1, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  t.is(await lastEvent(fetchedBefore.state), 'PresentationFulfilled');
  // A new request is made under the new key.
  const fresh = await fetchAuthorizationRequest(h.endpoints, (await request(tenant, { dcql_query: pidQuery() })).cross_device_request_uri);
  t.is(fresh.clientId, clientIdOf(tenant));
});

test('with enforcement, a query outside the registration is 422 problem+json naming each query and claim path, and nothing is recorded', async (t) => {
  const tenant = await keyWith(h.service, ['connector'], 'tenant enforcing');
  await register(tenant.tenantId, PID_REGISTERED, true);
  const refused = await create(tenant, {
    dcql_query: {
      credentials: [
        { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: [{ path: ['given_name'] }, { path: ['birthdate'] }, { path: ['nationalities', null] }] },
        { id: 'diploma', format: 'dc+sd-jwt', meta: { vct_values: ['urn:example:diploma'] }, claims: [{ path: ['degree'] }] },
      ],
    },
  });
  t.is(refused.status, 422);
  t.is(refused.contentType, 'application/problem+json');
  const errors = refused.json['errors'] as { location: string; message: string; value: unknown }[];
  t.deepEqual(
    errors.map((e) => [e.location, e.value]),
    [
      ['body.dcql_query.credentials[0].claims[1].path', ['birthdate']],
      ['body.dcql_query.credentials[0].claims[2].path', ['nationalities', null]],
      ['body.dcql_query.credentials[1].meta.vct_values[0]', 'urn:example:diploma'],
    ],
  );
  t.true(errors[0]!.message.includes('"pid"') && errors[0]!.message.includes('["birthdate"]'));
  t.true(errors[2]!.message.includes('"diploma"'));
  t.true(String(refused.json['detail']).includes('["nationalities",null]'));
  const requested = (await h.service.service.store.readAll()).filter((e) => e.type === 'PresentationRequested' && (e.data as { tenantId?: string }).tenantId === tenant.tenantId);
  t.deepEqual(requested, []);
});

test('with enforcement, a query inside the registration (sub-claims of a registered claim too) is created and FULFILLED', async (t) => {
  const tenant = await keyWith(h.service, ['connector'], 'tenant enforcing inside');
  accessKeys.set(tenant.tenantId, await accessIdentity('tenant-inside'));
  await register(tenant.tenantId, PID_REGISTERED, true);
  const created = await request(tenant, { dcql_query: pidQuery() });
  const fetched = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
  t.is((await answer(h.endpoints, fetched, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  t.is(await lastEvent(created.state), 'PresentationFulfilled');
  t.is((await create(tenant, { dcql_query: pidQuery({ claims: [{ path: ['address', 'locality'] }] }) })).status, 201);
});

test('without enforcement, a query outside the registration is created', async (t) => {
  t.false(registrations.get(a.tenantId)!.enforce);
  t.is((await create(a, { dcql_query: pidQuery({ claims: [{ path: ['birthdate'] }] }) })).status, 201);
});

test("a presentation bound to another client id than the session's (another tenant's) fails verification", async (t) => {
  const created = await request(a, { dcql_query: pidQuery() });
  const fetched = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
  const posted = await answer(h.endpoints, fetched, { pid: { credential: await h.pid(), holder: h.holder, keyBinding: { aud: clientIdOf(b) } } });
  t.is(posted.status, 400);
  t.is(await lastEvent(created.state), 'PresentationVerificationFailed');
});
