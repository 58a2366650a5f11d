// mdocs through the whole verification flow: POST /oidc4vp with an `mso_mdoc` credential query
// (alone, or beside an SD-JWT VC query), the wallet's encrypted DeviceResponse, and the callback.
import { KeyObject } from 'node:crypto';
import test from 'ava';
import { createCertificateAuthority, createLeafCertificate, type CertifiedKey } from '../src/crypto/certificates.js';
import { fullDate } from '../src/mdoc/claims.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { jwkThumbprintBytes } from '../src/mdoc/sessionTranscript.js';
import { newWalletKey, type WalletKey } from '../wallet/keys.js';
import { presentMdoc, readIssuerSigned } from '../wallet/mdoc.js';
import { buildVpToken, encryptResponse, type AuthorizationRequest } from '../wallet/presentation.js';
import { PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { postResponse } from './support/wallet/presentation.js';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DAY = 86_400_000;

let h: VerificationHarness;
let signer: CertifiedKey;
let device: WalletKey;
let mdl: string;

test.before(async () => {
  h = await startVerificationHarness();
  const ca = await createCertificateAuthority({ commonName: 'Test IACA' });
  signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', subjectAltNames: [{ type: 'url', value: 'https://mdl-issuer.example' }] });
  device = await newWalletKey();
  const now = new Date();
  mdl = Buffer.from(
    buildIssuerSigned({
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
      signer: { privateKey: KeyObject.from(signer.keys.privateKey), x5chain: [new Uint8Array(signer.certificate.rawData)] },
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
