// mdocs through the whole verification flow: POST /oidc4vp with an `mso_mdoc` credential query
// (alone, or beside an SD-JWT VC query), the wallet's encrypted DeviceResponse, and the callback.
import { keySigner } from '../src/crypto/signer.js';
import test from 'ava';
import { exportJWK } from 'jose';
import { CoseKey, DateOnly, DeviceKey, DeviceRequest, DocRequest, Holder, Issuer, ItemsRequest, SessionTranscript, SignatureAlgorithm } from '@owf/mdoc';
import { createCertificateAuthority, createLeafCertificate, type CertifiedKey } from '../src/crypto/certificates.js';
import { fullDate } from '../src/mdoc/claims.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { jwkThumbprintBytes } from '../src/mdoc/sessionTranscript.js';
import { newWalletKey, type WalletKey } from '../wallet/keys.js';
import { presentMdoc, readIssuerSigned } from '../wallet/mdoc.js';
import { buildVpToken, encryptResponse, type AuthorizationRequest } from '../wallet/presentation.js';
import { PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { postResponse } from './support/wallet/presentation.js';
import { owfMdocContext } from './support/owfMdoc.js';
import { keyWith, type TestKey } from './support/console.js';
import { fetchAuthorizationRequest } from './support/wallet/presentation.js';
import { generateChain, signingIdentity, type SigningIdentity } from '../src/crypto/signingIdentity.js';
import { x509HashClientId } from '../src/crypto/certificates.js';
import { presentationStream } from '../streams/presentation.js';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DAY = 86_400_000;
const PID_DOCTYPE = 'eu.europa.ec.eudi.pid.1';

let h: VerificationHarness;
let signer: CertifiedKey;
let device: WalletKey;
let mdl: string;
let signerJwk: Record<string, unknown>;
/** A tenant with an access key of its own (issue 38), given to the service through its port. */
let tenant: TestKey;
let tenantAccess: SigningIdentity | undefined;

test.before(async () => {
  h = await startVerificationHarness({}, { tenantIdentity: { tenantKeys: { active: async (tenantId) => (tenantId === tenant?.tenantId ? tenantAccess : undefined) } } });
  tenant = await keyWith(h.service, ['connector'], 'tenant with its own verifier');
  const access = await generateChain('tenant access certificate');
  tenantAccess = await signingIdentity([access.leaf.certificate, access.ca.certificate], access.leaf.keys.privateKey);
  const ca = await createCertificateAuthority({ commonName: 'Test IACA' });
  signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', subjectAltNames: [{ type: 'url', value: 'https://mdl-issuer.example' }] });
  device = await newWalletKey();
  signerJwk = (await exportJWK(signer.keys.privateKey)) as Record<string, unknown>;
  const now = new Date();
  mdl = Buffer.from(
    await buildIssuerSigned({
      docType: MDL,
      nameSpaces: new Map([[NS, new Map<string, unknown>([
        ['family_name', 'Mustermann'],
        ['given_name', 'Erika'],
        ['birth_date', fullDate('1964-08-12')],
        ['portrait', Buffer.from([0xff, 0xd8, 0xff])],
      ])]]),
      deviceKey: device.publicJwk,
      validFrom: new Date(now.getTime() - DAY),
      validUntil: new Date(now.getTime() + DAY),
      signer: { signer: keySigner(signer.keys.privateKey), x5chain: [new Uint8Array(signer.certificate.rawData)] },
      now,
    }),
  ).toString('base64url');
});

test.after.always(async () => h.close());

const mdlQuery = (extra: Record<string, unknown> = {}) => ({
  id: 'mdl',
  format: 'mso_mdoc',
  meta: { doctype_value: MDL },
  claims: [{ path: [NS, 'family_name'], intent_to_retain: false }, { path: [NS, 'birth_date'] }],
  ...extra,
});

const pidSdJwtQuery = { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: [{ path: ['given_name'] }] };

/** Our wallet's DeviceResponse for the request, disclosing `disclose`. */
const deviceResponse = async (request: AuthorizationRequest, disclose: [string, string][], nonce = request.nonce): Promise<string> =>
  presentMdoc(readIssuerSigned(mdl), {
    docType: MDL,
    disclose,
    deviceKey: device.privateKey,
    handover: { clientId: request.clientId, nonce, responseUri: request.responseUri, jwkThumbprint: await jwkThumbprintBytes(request.encryptionKey) },
  });

const post = async (request: AuthorizationRequest, vpToken: Record<string, string[]>) =>
  postResponse(h.endpoints, request, { response: await encryptResponse(request, { vp_token: vpToken, state: request.state }) });

test('an mDL and an SD-JWT VC PID in one request: FULFILLED, each credential object in its format, mdoc elements not asked for never delivered', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: { credentials: [pidSdJwtQuery, mdlQuery()] } });
  const pid = await buildVpToken(request, { pid: { credential: await h.pid(), holder: h.holder } });
  // The wallet shows the portrait too, which the query did not ask for.
  const mdoc = await deviceResponse(request, [[NS, 'family_name'], [NS, 'birth_date'], [NS, 'portrait']]);
  const posted = await post(request, { pid: pid['pid']!, mdl: [mdoc] });
  t.is(posted.status, 200);
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  const credentials = callback['credentials'] as Record<string, Record<string, unknown>[]>;
  t.like(credentials['pid']?.[0], { format: 'dc+sd-jwt', vct: PID_VCT, claims: { vct: PID_VCT, given_name: 'Erika' } });
  const [credential] = credentials['mdl'] ?? [];
  t.like(credential, { format: 'mso_mdoc', doctype: MDL, issuer: 'https://mdl-issuer.example', signatureIsValid: true, kbSignatureIsValid: true, supportRevocation: false });
  t.deepEqual(credential?.['claims'], { [NS]: { family_name: 'Mustermann', birth_date: '1964-08-12' } });
  const [raw] = (callback['credentialsRaw'] as Record<string, Record<string, unknown>[]>)['mdl'] ?? [];
  t.deepEqual(JSON.parse(Buffer.from(String(raw?.['claims']), 'base64').toString('utf8')), credential?.['claims']);
  t.false(JSON.stringify(callback).includes('portrait'));
});

test("a tenant's own verifier: the mDL's SessionTranscript binds the tenant's client id (FULFILLED); one bound to the deployment's fails", async (t) => {
  const outcome = async (clientId: (request: AuthorizationRequest) => string): Promise<string | undefined> => {
    const created = await h.service.management('/oidc4vp', {
      method: 'POST',
      key: tenant.secret,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ dcql_query: { credentials: [mdlQuery()] } }),
    });
    const { cross_device_request_uri: uri, state } = (await created.json()) as { cross_device_request_uri: string; state: string };
    const request = await fetchAuthorizationRequest(h.endpoints, uri);
    t.is(request.clientId, x509HashClientId(tenantAccess!.chain[0]!));
    const mdoc = await deviceResponse({ ...request, clientId: clientId(request) }, [[NS, 'family_name'], [NS, 'birth_date']]);
    await post(request, { mdl: [mdoc] });
    const read = await h.service.service.store.readStream(presentationStream(state));
    return read._tag === 'Found' ? read.events.at(-1)?.type : undefined;
  };
  t.is(await outcome((request) => request.clientId), 'PresentationFulfilled');
  const deployment = (await fetchAuthorizationRequest(h.endpoints, (await h.request({ dcql_query: { credentials: [mdlQuery()] } })).cross_device_request_uri)).clientId;
  t.is(await outcome(() => deployment), 'PresentationVerificationFailed');
});

test('an mDL device-signed for another nonce is VERIFICATION_FAILED with the reason', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: { credentials: [mdlQuery()] } });
  const posted = await post(request, { mdl: [await deviceResponse(request, [[NS, 'family_name'], [NS, 'birth_date']], 'another-nonce')] });
  t.is(posted.status, 400);
  t.like(await h.callback(created.state), {
    status: 'VERIFICATION_FAILED',
    errorDetails: "deviceSignature does not verify with the MSO device key over this request's SessionTranscript",
  });
});

test('credential_sets may offer an mDL or an SD-JWT VC PID: the mDL alone fulfils it', async (t) => {
  const { created, request } = await h.requestAndFetch({
    dcql_query: { credentials: [pidSdJwtQuery, mdlQuery()], credential_sets: [{ options: [['pid'], ['mdl']] }] },
  });
  await post(request, { mdl: [await deviceResponse(request, [[NS, 'family_name'], [NS, 'birth_date']])] });
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  t.deepEqual(Object.keys(callback['credentials'] as object), ['mdl']);
});

for (const [name, body, location] of [
  ['an mso_mdoc query without meta.doctype_value', { dcql_query: { credentials: [mdlQuery({ meta: {} })] } }, 'body.dcql_query.credentials[0].meta.doctype_value'],
  ['an mdoc claims path that is not [namespace, element]', { dcql_query: { credentials: [mdlQuery({ claims: [{ path: [NS, 'driving_privileges', 0] }] })] } }, 'body.dcql_query.credentials[0].claims[0].path'],
  ['a format this connector does not verify', { dcql_query: { credentials: [mdlQuery({ format: 'jwt_vc_json' })] } }, 'body.dcql_query.credentials[0].format'],
  [
    'transaction data naming an mso_mdoc query',
    { dcql_query: { credentials: [mdlQuery()] }, transaction_data: [{ type: 'payment', credential_ids: ['mdl'] }] },
    'body.transaction_data[0].credential_ids[0]',
  ],
] as const) {
  test(`POST /oidc4vp refuses ${name} with 400`, async (t) => {
    const { status, json } = await h.create(body);
    t.is(status, 400);
    t.deepEqual((json['errors'] as { location: string }[]).map((e) => e.location), [location]);
  });
}

// --- an independent issuer and holder: the OpenWallet Foundation's mdoc library builds both

for (const flow of ['same-device', 'cross-device'] as const) {
  test(`${flow}: an mDL and a PID issued and presented by an independent library are FULFILLED with their elements`, async (t) => {
    const now = new Date();
    const deviceJwk = await exportJWK(device.privateKey);
    const issued = [
      [MDL, NS, 'mdl', { family_name: 'Doe', birth_date: new DateOnly('1990-01-01') }],
      [PID_DOCTYPE, PID_DOCTYPE, 'pid', { family_name: 'Mustermann', birth_date: new DateOnly('1964-08-12') }],
    ] as const;
    const credentials = await Promise.all(
      issued.map(([docType, namespace, , values]) =>
        new Issuer(docType, owfMdocContext).addIssuerNamespace(namespace, { ...values }).sign({
          signingKey: CoseKey.fromJwk(signerJwk),
          certificates: [new Uint8Array(signer.certificate.rawData)],
          algorithm: SignatureAlgorithm.ES256,
          digestAlgorithm: 'SHA-256',
          deviceKeyInfo: { deviceKey: DeviceKey.fromJwk(device.publicJwk as Record<string, unknown>) },
          validityInfo: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + DAY) },
        }),
      ),
    );
    const query = issued.map(([docType, namespace, id]) => ({ id, format: 'mso_mdoc', meta: { doctype_value: docType }, claims: [{ path: [namespace, 'family_name'] }, { path: [namespace, 'birth_date'] }] }));
    const { created, request } = await h.requestAndFetch({ dcql_query: { credentials: query }, redirect_uri: 'https://rp.example/done' }, flow);
    const sessionTranscript = await SessionTranscript.forOid4Vp(
      { clientId: request.clientId, nonce: request.nonce, responseUri: request.responseUri, jwkThumbprint: await jwkThumbprintBytes(request.encryptionKey) },
      owfMdocContext,
    );
    const vpToken: Record<string, string[]> = {};
    for (const [index, [docType, namespace, id]] of issued.entries()) {
      const deviceRequest = DeviceRequest.create({
        docRequests: [DocRequest.create({ itemsRequest: ItemsRequest.create({ docType, namespaces: { [namespace]: { family_name: false, birth_date: false } } }) })],
      });
      const response = await Holder.createDeviceResponseForDeviceRequest(
        { deviceRequest, issuerSigned: [credentials[index]!], sessionTranscript, signature: { signingKey: CoseKey.fromJwk({ ...deviceJwk, alg: 'ES256' }) } },
        owfMdocContext,
      );
      vpToken[id] = [response.encodedForOid4Vp];
    }
    const posted = await post(request, vpToken);
    t.is(posted.status, 200);
    const callback = await h.callback(created.state);
    t.is(callback['status'], 'FULFILLED', String(callback['errorDetails']));
    if (flow === 'same-device') t.regex(String(posted.body['redirect_uri']), /^https:\/\/rp\.example\/done\?response_code=/);
    const delivered = callback['credentials'] as Record<string, Record<string, unknown>[]>;
    t.deepEqual(delivered['mdl']?.[0]?.['claims'], { [NS]: { family_name: 'Doe', birth_date: '1990-01-01' } });
    t.deepEqual(delivered['pid']?.[0]?.['claims'], { [PID_DOCTYPE]: { family_name: 'Mustermann', birth_date: '1964-08-12' } });
    t.like(delivered['pid']?.[0], { format: 'mso_mdoc', doctype: PID_DOCTYPE, kbSignatureIsValid: true });
  });
}
