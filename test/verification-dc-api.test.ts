// OpenID4VP over the Digital Credentials API (OpenID4VP 1.0 Appendix A, HAIP), end to end over
// real HTTP: POST /oidc4vp with "flow_type": "dc_api" answers what the page passes to the browser;
// the holder's answer is built here by independent libraries (@sd-jwt/* for the SD-JWT VC and its
// KB-JWT, @owf/mdoc for the DeviceResponse over the OpenID4VPDCAPIHandover SessionTranscript, jose
// for the JWE to the request's key) and forwarded to POST /oidc4vp/{state}/dc-api-response as the
// integrator's backend would. Every refusal of the issue's list, and what it leaves unchanged.
import { generateKeyPairSync } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint, CompactEncrypt, exportJWK, importJWK, type JWK } from 'jose';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { CoseKey, DateOnly, DeviceKey, DeviceRequest, DocRequest, Holder, Issuer, ItemsRequest, SessionTranscript, SignatureAlgorithm } from '@owf/mdoc';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { createCertificateAuthority, createLeafCertificate } from '../src/crypto/certificates.js';
import { PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { postResponse } from './support/wallet/presentation.js';
import { owfMdocContext } from './support/owfMdoc.js';
import { createDcApi, MDL, mdlQuery, NS, ORIGIN, pidQuery, readRequest, single, type DcApiEntry, type ReadRequest } from './support/dcApi.js';

const OTHER_ORIGIN = 'https://evil.example';
const DAY = 86_400_000;

let h: VerificationHarness;
let sdJwt: SDJwtVcInstance;
let pid: string;
let mdl: Awaited<ReturnType<Issuer['sign']>>;
let deviceJwk: JWK;

test.before(async () => {
  h = await startVerificationHarness();
  // The SD-JWT VC: issued by @sd-jwt with the test issuer's leaf key and chain, bound to the holder.
  sdJwt = new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: generateSalt,
    signer: await ES256.getSigner(await exportJWK(h.issuer.leaf.keys.privateKey)),
    signAlg: 'ES256',
    kbSigner: await ES256.getSigner(await exportJWK(h.holder.keys.privateKey)),
    kbSignAlg: 'ES256',
  });
  pid = await sdJwt.issue(
    { iss: 'https://pid-issuer.example', vct: PID_VCT, cnf: { jwk: h.holder.publicJwk }, given_name: 'Erika', family_name: 'Mustermann' },
    { _sd: ['given_name', 'family_name'] },
    { header: { typ: 'dc+sd-jwt', x5c: [...h.issuer.x5c] } },
  );
  // The mDL: issued by @owf/mdoc, its device key the holder's.
  const ca = await createCertificateAuthority({ commonName: 'Test IACA' });
  const signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', subjectAltNames: [{ type: 'url', value: 'https://mdl-issuer.example' }] });
  const device = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  deviceJwk = device.privateKey.export({ format: 'jwk' }) as JWK;
  const now = new Date();
  mdl = await new Issuer(MDL, owfMdocContext).addIssuerNamespace(NS, { family_name: 'Doe', birth_date: new DateOnly('1990-01-01') }).sign({
    signingKey: CoseKey.fromJwk((await exportJWK(signer.keys.privateKey)) as Record<string, unknown>),
    certificates: [new Uint8Array(signer.certificate.rawData)],
    algorithm: SignatureAlgorithm.ES256,
    digestAlgorithm: 'SHA-256',
    deviceKeyInfo: { deviceKey: DeviceKey.fromJwk(device.publicKey.export({ format: 'jwk' }) as Record<string, unknown>) },
    validityInfo: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + DAY) },
  });
});

test.after.always(async () => h.close());

// --- the integrator's side

/** POST /oidc4vp/{state}/dc-api-response, as the integrator's backend forwards the browser's answer. */
const forward = async (state: string, body: unknown, key?: string) => {
  const response = await h.service.management(`/oidc4vp/${state}/dc-api-response`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    ...(key !== undefined ? { key } : {}),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

// --- the wallet's side, with independent libraries

/** `dc_api.jwt`: the Authorization Response as a JWE (ECDH-ES, A128GCM) to `key`. */
const encrypt = async (key: JWK, payload: unknown): Promise<string> =>
  new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: String(key.kid) })
    .encrypt(await importJWK({ kty: key.kty, crv: key.crv, x: key.x, y: key.y } as JWK, 'ECDH-ES'));

const presentPid = (aud: string, nonce: string) =>
  sdJwt.present(pid, { given_name: true, family_name: true }, { kb: { payload: { aud, nonce, iat: Math.floor(Date.now() / 1000) } } });

const thumbprint = async (key: JWK) => new Uint8Array(Buffer.from(await calculateJwkThumbprint({ kty: key.kty!, crv: key.crv!, x: key.x!, y: key.y! } as JWK, 'sha256'), 'base64url'));

/** The mDL's DeviceResponse, device-signed over the OpenID4VPDCAPIHandover of `origin`, `nonce` and the key's thumbprint. */
const presentMdl = async (handover: { origin: string; nonce: string; key: JWK }): Promise<string> => {
  const sessionTranscript = await SessionTranscript.forOid4VpDcApi({ origin: handover.origin, nonce: handover.nonce, jwkThumbprint: await thumbprint(handover.key) }, owfMdocContext);
  const deviceRequest = DeviceRequest.create({ docRequests: [DocRequest.create({ itemsRequest: ItemsRequest.create({ docType: MDL, namespaces: { [NS]: { family_name: false, birth_date: false } } }) })] });
  const response = await Holder.createDeviceResponseForDeviceRequest(
    { deviceRequest, issuerSigned: [mdl], sessionTranscript, signature: { signingKey: CoseKey.fromJwk({ ...deviceJwk, alg: 'ES256' } as Record<string, unknown>) } },
    owfMdocContext,
  );
  return response.encodedForOid4Vp;
};

/** The wallet's `data` for a PID presented to `origin` (the KB-JWT's audience `origin:<origin>` unless `aud` says otherwise). */
const pidAnswer = async (request: ReadRequest, options: { aud?: string; key?: JWK } = {}) => ({
  response: await encrypt(options.key ?? request.key, { vp_token: { pid: [await presentPid(options.aud ?? `origin:${ORIGIN}`, request.nonce)] } }),
});

// --- FULFILLED, signed and unsigned, SD-JWT VC and mdoc

for (const signed of [true, false]) {
  const protocol = signed ? 'openid4vp-v1-signed' : 'openid4vp-v1-unsigned';

  test(`${protocol}: an SD-JWT VC presented by @sd-jwt is FULFILLED; the answer is the callback's body`, async (t) => {
    const created = await createDcApi(h, [pidQuery], signed ? {} : { dc_api_signed: false });
    const entry = single(created);
    t.is(entry.protocol, protocol);
    const request = await readRequest(entry);
    const answered = await forward(created.state, { origin: ORIGIN, protocol, data: await pidAnswer(request) });
    t.is(answered.status, 200, JSON.stringify(answered.json));
    t.like(answered.json, { status: 'FULFILLED', state: created.state });
    const credentials = answered.json['credentials'] as Record<string, Record<string, unknown>[]>;
    t.like(credentials['pid']?.[0], { format: 'dc+sd-jwt', vct: PID_VCT, claims: { given_name: 'Erika', family_name: 'Mustermann' }, kbSignatureIsValid: true });
    t.deepEqual(await h.callback(created.state), answered.json);
  });

  test(`${protocol}: an mDL presented by @owf/mdoc over the OpenID4VPDCAPIHandover SessionTranscript is FULFILLED`, async (t) => {
    const created = await createDcApi(h, [mdlQuery], signed ? {} : { dc_api_signed: false });
    const request = await readRequest(single(created));
    const deviceResponse = await presentMdl({ origin: ORIGIN, nonce: request.nonce, key: request.key });
    // Forwarded without `protocol`: told by the shape of `data`.
    const answered = await forward(created.state, { origin: ORIGIN, data: { response: await encrypt(request.key, { vp_token: { mdl: [deviceResponse] } }) } });
    t.is(answered.status, 200);
    t.is(answered.json['status'], 'FULFILLED', String(answered.json['errorDetails']));
    const credentials = answered.json['credentials'] as Record<string, Record<string, unknown>[]>;
    t.like(credentials['mdl']?.[0], { format: 'mso_mdoc', doctype: MDL, kbSignatureIsValid: true });
    t.deepEqual(credentials['mdl']?.[0]?.['claims'], { [NS]: { family_name: 'Doe', birth_date: '1990-01-01' } });
    t.deepEqual(await h.callback(created.state), answered.json);
  });
}

// --- what the page gets

test('dc_api_protocols: dc_api_request is an array in its order, even of one; either form answers the session', async (t) => {
  const both = await createDcApi(h, [pidQuery], { dc_api_protocols: ['openid4vp-v1-unsigned', 'openid4vp-v1-signed'] });
  t.true(Array.isArray(both.dc_api_request));
  const entries = both.dc_api_request as DcApiEntry[];
  t.deepEqual(entries.map((e) => e.protocol), ['openid4vp-v1-unsigned', 'openid4vp-v1-signed']);
  const [unsigned, signed] = await Promise.all(entries.map(readRequest));
  // One request in two forms: the same nonce and key.
  t.is(unsigned!.nonce, signed!.nonce);
  t.deepEqual(unsigned!.key, signed!.key);
  const answered = await forward(both.state, { origin: ORIGIN, protocol: 'openid4vp-v1-signed', data: await pidAnswer(signed!) });
  t.is(answered.json['status'], 'FULFILLED');

  const one = await createDcApi(h, [pidQuery], { dc_api_protocols: ['openid4vp-v1-signed'] });
  t.true(Array.isArray(one.dc_api_request));
  t.is((one.dc_api_request as DcApiEntry[]).length, 1);
});

// --- refused with a reason: the session ends VERIFICATION_FAILED or PROCESSING_ERROR

const failsWith = async (t: ExecutionContext, state: string, body: unknown, status: string, errorDetails: string | RegExp) => {
  const answered = await forward(state, body);
  t.is(answered.status, 200);
  t.is(answered.json['status'], status);
  if (typeof errorDetails === 'string') t.is(answered.json['errorDetails'], errorDetails);
  else t.regex(String(answered.json['errorDetails']), errorDetails);
  t.deepEqual(await h.callback(state), answered.json);
};

test('an origin not in expected_origins is VERIFICATION_FAILED, whatever the answer holds', async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  const request = await readRequest(single(created));
  await failsWith(t, created.state, { origin: OTHER_ORIGIN, data: await pidAnswer(request, { aud: `origin:${OTHER_ORIGIN}` }) }, 'VERIFICATION_FAILED', "the page's origin is not one of the request's expected_origins");
  // A path, a trailing slash or another scheme is another origin: compared as strings.
  const again = await createDcApi(h, [pidQuery]);
  const other = await readRequest(single(again));
  await failsWith(t, again.state, { origin: `${ORIGIN}/`, data: await pidAnswer(other) }, 'VERIFICATION_FAILED', "the page's origin is not one of the request's expected_origins");
});

for (const signed of [true, false]) {
  test(`${signed ? 'signed' : 'unsigned'}: a KB-JWT whose aud is the client id, or another origin, is VERIFICATION_FAILED`, async (t) => {
    for (const aud of ['client_id', `origin:${OTHER_ORIGIN}`, ORIGIN]) {
      const created = await createDcApi(h, [pidQuery], signed ? {} : { dc_api_signed: false });
      const request = await readRequest(single(created));
      const audience = aud === 'client_id' ? String((await readRequest(single(await createDcApi(h, [pidQuery])))).parameters['client_id']) : aud;
      await failsWith(t, created.state, { origin: ORIGIN, data: await pidAnswer(request, { aud: audience }) }, 'VERIFICATION_FAILED', `KB-JWT aud is not origin:${ORIGIN}`);
    }
  });
}

test('a KB-JWT for another nonce is VERIFICATION_FAILED', async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  const request = await readRequest(single(created));
  const data = { response: await encrypt(request.key, { vp_token: { pid: [await presentPid(`origin:${ORIGIN}`, 'another-nonce')] } }) };
  await failsWith(t, created.state, { origin: ORIGIN, data }, 'VERIFICATION_FAILED', "KB-JWT nonce does not match the request's nonce");
});

for (const [name, change] of [
  ['another origin', { origin: OTHER_ORIGIN }],
  ['the origin with its origin: prefix', { origin: `origin:${ORIGIN}` }],
  ['another nonce', { nonce: 'another-nonce' }],
] as const) {
  test(`an mdoc whose OpenID4VPDCAPIHandover names ${name} is VERIFICATION_FAILED`, async (t) => {
    const created = await createDcApi(h, [mdlQuery]);
    const request = await readRequest(single(created));
    const handover = { origin: ORIGIN, nonce: request.nonce, key: request.key };
    const deviceResponse = await presentMdl(Object.assign(handover, change));
    const data = { response: await encrypt(request.key, { vp_token: { mdl: [deviceResponse] } }) };
    await failsWith(t, created.state, { origin: ORIGIN, data }, 'VERIFICATION_FAILED', "deviceSignature does not verify with the MSO device key over this request's SessionTranscript");
  });
}

test('an mdoc device-signed over the redirect flow\'s OpenID4VPHandover is VERIFICATION_FAILED over the DC API', async (t) => {
  const created = await createDcApi(h, [mdlQuery]);
  const request = await readRequest(single(created));
  const sessionTranscript = await SessionTranscript.forOid4Vp(
    { clientId: String((await readRequest(single(await createDcApi(h, [mdlQuery])))).parameters['client_id']), nonce: request.nonce, responseUri: `${ORIGIN}/response`, jwkThumbprint: await thumbprint(request.key) },
    owfMdocContext,
  );
  const deviceRequest = DeviceRequest.create({ docRequests: [DocRequest.create({ itemsRequest: ItemsRequest.create({ docType: MDL, namespaces: { [NS]: { family_name: false, birth_date: false } } }) })] });
  const response = await Holder.createDeviceResponseForDeviceRequest(
    { deviceRequest, issuerSigned: [mdl], sessionTranscript, signature: { signingKey: CoseKey.fromJwk({ ...deviceJwk, alg: 'ES256' } as Record<string, unknown>) } },
    owfMdocContext,
  );
  const data = { response: await encrypt(request.key, { vp_token: { mdl: [response.encodedForOid4Vp] } }) };
  await failsWith(t, created.state, { origin: ORIGIN, data }, 'VERIFICATION_FAILED', "deviceSignature does not verify with the MSO device key over this request's SessionTranscript");
});

test('a response encrypted to another key is PROCESSING_ERROR', async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  const request = await readRequest(single(created));
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as JWK;
  // Another session's key, under this session's kid and under its own.
  const elsewhere = await readRequest(single(await createDcApi(h, [pidQuery])));
  await failsWith(t, created.state, { origin: ORIGIN, data: await pidAnswer(request, { key: { ...other, kid: request.key.kid } }) }, 'PROCESSING_ERROR', 'the response could not be decrypted with the request key');
  const again = await createDcApi(h, [pidQuery]);
  await failsWith(t, again.state, { origin: ORIGIN, data: await pidAnswer(request, { key: elsewhere.key }) }, 'PROCESSING_ERROR', 'the response is encrypted to a key this request never offered');
});

test("the wallet's error ({error} as data) is REJECTED", async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  await failsWith(t, created.state, { origin: ORIGIN, data: { error: 'access_denied' } }, 'REJECTED', 'access_denied');
});

// --- refused without a change

test("a replay of a finished session's answer is 409 and changes nothing: one outcome, one callback", async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  const request = await readRequest(single(created));
  const body = { origin: ORIGIN, data: await pidAnswer(request) };
  t.is((await forward(created.state, body)).json['status'], 'FULFILLED');
  const replayed = await forward(created.state, body);
  t.is(replayed.status, 409);
  t.is(replayed.json['type'], '/problems/conflict');
  await h.callback(created.state);
  t.is(h.callbacks(created.state).length, 1);
});

test('an answer on the DC API route for a cross-device session is 409 and changes nothing; its wallet still answers', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: { credentials: [pidQuery] } });
  const refused = await forward(created.state, { origin: ORIGIN, data: { error: 'access_denied' } });
  t.is(refused.status, 409);
  t.regex(String(refused.json['detail']), /not created for the Digital Credentials API/);
  const posted = await postResponse(h.endpoints, request, { error: 'access_denied', state: request.state });
  t.is(posted.status, 200);
  t.like(await h.callback(created.state), { status: 'REJECTED' });
});

test("a DC API answer on the wallet's direct_post route is invalid_request and changes nothing; no request URI serves a DC API session", async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  const request = await readRequest(single(created));
  const data = await pidAnswer(request);
  const responseUri = `${h.endpoints.publicUrl}/oidc4vp/${created.state}/response`;
  const posted = await postResponse(h.endpoints, { responseUri }, data);
  t.is(posted.status, 400);
  t.is(posted.body['error'], 'invalid_request');
  t.regex(String(posted.body['error_description']), /Digital Credentials API/);
  for (const flowType of ['same-device', 'cross-device', 'dc_api']) {
    const fetched = await h.service.wallet(`/oidc4vp/${created.state}/request?flow_type=${flowType}`);
    t.is(fetched.status, 400);
    t.is(((await fetched.json()) as Record<string, unknown>)['error'], 'invalid_request');
  }
  // Nothing was recorded: the page's answer still ends the session.
  t.is((await forward(created.state, { origin: ORIGIN, data })).json['status'], 'FULFILLED');
});

test('bad bodies are 400 and change nothing: no origin, no data, a protocol not offered, data of no protocol', async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  const request = await readRequest(single(created));
  const data = await pidAnswer(request);
  for (const [body, location] of [
    [{ data }, 'body.origin'],
    [{ origin: '', data }, 'body.origin'],
    [{ origin: ORIGIN }, 'body.data'],
    [{ origin: ORIGIN, data: 'x' }, 'body.data'],
  ] as const) {
    const refused = await forward(created.state, body);
    t.is(refused.status, 400, JSON.stringify(body));
    t.deepEqual((refused.json['errors'] as { location: string }[]).map((e) => e.location), [location]);
  }
  for (const body of [
    { origin: ORIGIN, protocol: 'org-iso-mdoc', data },
    { origin: ORIGIN, protocol: 'openid4vp-v1-unsigned', data },
    { origin: ORIGIN, data: { response: 'not-a-jwe' } },
    { origin: ORIGIN, protocol: 'openid4vp-v1-signed', data: { something: 'else' } },
    { origin: ORIGIN, protocol: 'openid4vp-v1-signed', data: { error: 'bad "code"' } },
  ]) {
    const refused = await forward(created.state, body);
    t.is(refused.status, 400, JSON.stringify(body));
    t.is(refused.json['type'], '/problems/invalid-request');
  }
  t.is((await forward(created.state, { origin: ORIGIN, data })).json['status'], 'FULFILLED');
});

test("another tenant's session, and an unknown one, are 404", async (t) => {
  const created = await createDcApi(h, [pidQuery]);
  const request = await readRequest(single(created));
  const data = await pidAnswer(request);
  const store = h.service.service.store;
  const tenant = await createTenant(store, { name: 'other' }, { actor: 'test' });
  if (!isRight(tenant)) throw new Error('tenant');
  const key = await createApiKey(store, { tenantId: tenant.right.tenantId, scopes: ['connector'], expiration: null }, { actor: 'test' });
  if (!isRight(key)) throw new Error('key');
  await h.service.service.runner.waitFor(key.right.position, 5000);
  t.is((await forward(created.state, { origin: ORIGIN, data }, key.right.secret)).status, 404);
  t.is((await forward('A'.repeat(43), { origin: ORIGIN, data })).status, 404);
  t.is((await forward('short', { origin: ORIGIN, data })).status, 404);
  t.is((await forward(created.state, { origin: ORIGIN, data })).json['status'], 'FULFILLED');
});

test('an answer after the expiry is 409 and the session ends EXPIRED, once', async (t) => {
  // Unsigned: a signed request object of a one-second session may have expired before it is read.
  const created = await createDcApi(h, [pidQuery], { expires_in: 1, dc_api_signed: false });
  const request = await readRequest(single(created));
  const data = await pidAnswer(request);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.is((await forward(created.state, { origin: ORIGIN, data })).status, 409);
  t.like(await h.callback(created.state), { status: 'EXPIRED' });
  t.is(h.callbacks(created.state).length, 1);
});
