// ISO/IEC TS 18013-7 Annex C (`org-iso-mdoc`) over the Digital Credentials API, end to end over
// real HTTP: POST /oidc4vp offers it beside OpenID4VP for an mdoc-only query, the page's request
// `data` goes to an independent holder (@owf/mdoc, sealed by panva's hpke, test/support/annexCWallet.ts)
// as the browser would hand it over, and its answer, forwarded to
// POST /oidc4vp/{state}/dc-api-response, ends the session with the outcome the callback carries
// too. Then what a relayed or replayed answer, or an answer to another request, gets.
import test from 'ava';
import { decodeJwt, exportJWK, type JWK } from 'jose';
import { cborDecode, IssuerSigned as OwfIssuerSigned } from '@owf/mdoc';
import { presentationStream } from '../streams/presentation.js';
import { createCertificateAuthority, createLeafCertificate } from '../src/crypto/certificates.js';
import { fullDate } from '../src/mdoc/claims.js';
import { keySigner } from '../src/crypto/signer.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { newWalletKey } from '../wallet/keys.js';
import { annexCAnswer, recipientPoint, type AnnexCRequestData } from './support/annexCWallet.js';
import { PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DAY = 86_400_000;
const ORIGIN = 'https://shop.example';
const OTHER_ORIGIN = 'https://other-shop.example';

let h: VerificationHarness;
let mdl: OwfIssuerSigned;
let devicePrivateJwk: JWK;

test.before(async () => {
  h = await startVerificationHarness();
  const ca = await createCertificateAuthority({ commonName: 'Test IACA', country: 'DE' });
  const signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', country: 'DE', subjectAltNames: [{ type: 'url', value: 'https://mdl-issuer.example' }] });
  const device = await newWalletKey();
  devicePrivateJwk = await exportJWK(device.privateKey);
  const now = new Date();
  const issued = await buildIssuerSigned({
    docType: MDL,
    nameSpaces: new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann'], ['birth_date', fullDate('1964-08-12')], ['age_over_18', true]])]]),
    deviceKey: device.publicJwk,
    validFrom: new Date(now.getTime() - DAY),
    validUntil: new Date(now.getTime() + DAY),
    signer: { signer: keySigner(signer.keys.privateKey), x5chain: [new Uint8Array(signer.certificate.rawData)] },
    now,
  });
  mdl = OwfIssuerSigned.fromEncodedForOid4Vci(Buffer.from(issued).toString('base64url'));
});

test.after.always(async () => h.close());

const mdlQuery = { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'], intent_to_retain: false }, { path: [NS, 'age_over_18'], intent_to_retain: false }] };

interface DcApiRequestEntry {
  readonly protocol: string;
  readonly data: Record<string, unknown>;
}

/** A DC API session offered in `protocols`; its state and its `org-iso-mdoc` request data. */
const createSession = async (protocols: readonly string[] = ['openid4vp-v1-signed', 'org-iso-mdoc'], origins: readonly string[] = [ORIGIN]) => {
  const created = await h.create({ flow_type: 'dc_api', expected_origins: origins, dc_api_protocols: protocols, dcql_query: { credentials: [mdlQuery] } });
  if (created.status !== 201) throw new Error(`POST /oidc4vp answered ${created.status}: ${JSON.stringify(created.json)}`);
  const requests = created.json['dc_api_request'] as DcApiRequestEntry[];
  const isoMdoc = requests.find((r) => r.protocol === 'org-iso-mdoc');
  return { state: String(created.json['state']), requests, data: isoMdoc?.data as unknown as AnnexCRequestData };
};

/** What the integrator's backend forwards: the page's origin and the browser's `data` (and `protocol`, unless left out). */
const forward = async (state: string, body: Record<string, unknown>) => {
  const response = await h.service.management(`/oidc4vp/${encodeURIComponent(state)}/dc-api-response`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

const holderAnswer = (data: AnnexCRequestData, origin = ORIGIN) => annexCAnswer(data, { origin, issuerSigned: [mdl], devicePrivateJwk });

test('an mDL answered in Annex C form by an independent holder is FULFILLED; the answer and the callback carry the same event', async (t) => {
  const { state, requests, data } = await createSession();
  t.deepEqual(requests.map((r) => r.protocol), ['openid4vp-v1-signed', 'org-iso-mdoc']);
  t.deepEqual(Object.keys(data).sort(), ['deviceRequest', 'encryptionInfo']);
  const answered = await forward(state, { origin: ORIGIN, protocol: 'org-iso-mdoc', data: await holderAnswer(data) });
  t.is(answered.status, 200);
  t.like(answered.json, { status: 'FULFILLED', state });
  const [credential] = (answered.json['credentials'] as Record<string, Record<string, unknown>[]>)['mdl'] ?? [];
  t.like(credential, { format: 'mso_mdoc', doctype: MDL, issuer: 'https://mdl-issuer.example', signatureIsValid: true, kbSignatureIsValid: true });
  t.deepEqual(credential?.['claims'], { [NS]: { family_name: 'Mustermann', age_over_18: true } });
  t.deepEqual(await h.callback(state), answered.json);
});

test('the recipient key is a key of its own, recorded sealed; the nonce is the OpenID4VP request\'s', async (t) => {
  const { state, requests, data } = await createSession();
  const read = await h.service.service.store.readStream(presentationStream(state));
  if (read._tag !== 'Found') return t.fail('no session stream');
  const recorded = (read.events[0]!.data as { dcApi: Record<string, unknown> }).dcApi;
  t.deepEqual(Object.keys(recorded['annexCRecipientKey'] as object).sort(), ['alg', 'ciphertext', 'iv', 'tag']);
  const signed = decodeJwt(String(requests[0]!.data['request'])) as { nonce: string; client_metadata: { jwks: { keys: JWK[] } } };
  const [, parameters] = cborDecode(Buffer.from(data.encryptionInfo, 'base64url')) as [string, Map<string, Uint8Array>];
  t.deepEqual(Buffer.from(parameters.get('nonce')!), Buffer.from(signed.nonce, 'base64url'));
  const point = Buffer.from(recipientPoint(data.encryptionInfo));
  const responseKey = signed.client_metadata.jwks.keys[0]!;
  t.notDeepEqual(point.subarray(1, 33), Buffer.from(responseKey.x!, 'base64url'));
});

test('an answer forwarded without `protocol` is told by its shape; a session offered in org-iso-mdoc alone gets an array of one', async (t) => {
  const { state, requests, data } = await createSession(['org-iso-mdoc']);
  t.is(requests.length, 1);
  const answered = await forward(state, { origin: ORIGIN, data: await holderAnswer(data) });
  t.like(answered.json, { status: 'FULFILLED' });
});

test('an origin the request did not expect is VERIFICATION_FAILED', async (t) => {
  const { state, data } = await createSession();
  const answered = await forward(state, { origin: OTHER_ORIGIN, protocol: 'org-iso-mdoc', data: await holderAnswer(data, OTHER_ORIGIN) });
  t.like(answered.json, { status: 'VERIFICATION_FAILED', errorDetails: "the page's origin is not one of the request's expected_origins" });
  t.like(await h.callback(state), { status: 'VERIFICATION_FAILED' });
});

test('an answer made on another expected page but forwarded as this one\'s (its SessionTranscript names another origin) is PROCESSING_ERROR', async (t) => {
  const { state, data } = await createSession(['org-iso-mdoc'], [ORIGIN, OTHER_ORIGIN]);
  const answered = await forward(state, { origin: ORIGIN, data: await holderAnswer(data, OTHER_ORIGIN) });
  t.like(answered.json, { status: 'PROCESSING_ERROR', errorDetails: "the Annex C response does not open with the request key and this origin's SessionTranscript" });
});

test('an answer to another session\'s request (encrypted to its key, for its nonce) is PROCESSING_ERROR', async (t) => {
  const first = await createSession();
  const second = await createSession();
  const answered = await forward(second.state, { origin: ORIGIN, protocol: 'org-iso-mdoc', data: await holderAnswer(first.data) });
  t.like(answered.json, { status: 'PROCESSING_ERROR', errorDetails: "the Annex C response does not open with the request key and this origin's SessionTranscript" });
});

test('a replay of a finished session\'s answer is refused (409) and changes nothing', async (t) => {
  const { state, data } = await createSession();
  const body = { origin: ORIGIN, protocol: 'org-iso-mdoc', data: await holderAnswer(data) };
  t.like((await forward(state, body)).json, { status: 'FULFILLED' });
  await h.callback(state);
  const replayed = await forward(state, body);
  t.is(replayed.status, 409);
  const read = await h.service.service.store.readStream(presentationStream(state));
  t.is(read._tag === 'Found' ? read.events.filter((e) => e.type === 'PresentationFulfilled').length : 0, 1);
  t.is(h.callbacks(state).length, 1);
});

test('an Annex C answer to a session not offered in org-iso-mdoc is no answer (400) and changes nothing', async (t) => {
  const annexC = await createSession();
  const { state } = await createSession(['openid4vp-v1-signed']);
  const response = (await holderAnswer(annexC.data)).response;
  t.is((await forward(state, { origin: ORIGIN, protocol: 'org-iso-mdoc', data: { response } })).status, 400);
  t.is((await forward(state, { origin: ORIGIN, data: { response } })).status, 400);
  const read = await h.service.service.store.readStream(presentationStream(state));
  t.is(read._tag === 'Found' ? read.events.length : 0, 1);
});

test('POST /oidc4vp refuses org-iso-mdoc for a query that asks an SD-JWT VC, or one docType twice (400)', async (t) => {
  const sdJwt = { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: [{ path: ['given_name'] }] };
  const mixed = await h.create({ flow_type: 'dc_api', expected_origins: [ORIGIN], dc_api_protocols: ['org-iso-mdoc'], dcql_query: { credentials: [mdlQuery, sdJwt] } });
  t.is(mixed.status, 400);
  t.deepEqual((mixed.json['errors'] as { location: string }[]).map((e) => e.location), ['body.dcql_query.credentials[1].format']);
  const twice = await h.create({ flow_type: 'dc_api', expected_origins: [ORIGIN], dc_api_protocols: ['org-iso-mdoc'], dcql_query: { credentials: [mdlQuery, { ...mdlQuery, id: 'mdl2' }] } });
  t.is(twice.status, 400);
  t.deepEqual((twice.json['errors'] as { location: string }[]).map((e) => e.location), ['body.dcql_query.credentials[1].meta.doctype_value']);
  // The same mixed query is fine for OpenID4VP alone.
  t.is((await h.create({ flow_type: 'dc_api', expected_origins: [ORIGIN], dcql_query: { credentials: [mdlQuery, sdJwt] } })).status, 201);
});
