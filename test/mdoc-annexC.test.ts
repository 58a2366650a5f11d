// ISO/IEC TS 18013-7 Annex C (`org-iso-mdoc`): the request's structures against the Multipaz
// online verifier's (a captured request), the SessionTranscript against one computed with another
// CBOR encoder, and answers built by an independent holder (@owf/mdoc) and sealed by an independent
// HPKE implementation (panva's `hpke`) opened and verified here, with the session's DCQL query;
// then each thing a relayed, replayed or altered answer changes is refused.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import test from 'ava';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { cborDecode, cborEncode, DataItem, DeviceRequest, IssuerSigned as OwfIssuerSigned } from '@owf/mdoc';
import { createCertificateAuthority, createLeafCertificate, type CertifiedKey } from '../src/crypto/certificates.js';
import { silentLogger } from '../src/log.js';
import { deviceRequest, encryptionInfo } from '../src/mdoc/annexC.js';
import { sessionTranscriptBytes } from '../src/mdoc/sessionTranscript.js';
import { coseKeyToJwk } from '../src/mdoc/cose.js';
import { keySigner } from '../src/crypto/signer.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { fullDate } from '../src/mdoc/claims.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import { annexCQueryProblems, annexCRequestData } from '../src/verification/dcApi/annexCRequest.js';
import { verifyAnnexCResponse, type AnnexCFailure, type AnnexCSession } from '../src/verification/dcApi/annexCResponse.js';
import type { SealedRequest } from '../src/verification/sealedRequest.js';
import { DcqlQuery } from '../src/verification/dcql.js';
import { createPresentationVerifier } from '../src/verification/formats/registry.js';
import type { PresentationVerifier } from '../src/verification/presentedCredentialVerifier.js';
import { createCredentialStatusChecker } from '../src/verification/status/statusCheck.js';
import { createStatusListClient } from '../src/verification/status/statusListClient.js';
import type { VerifiedPresentation } from '../src/verification/vpToken.js';
import { exportWalletKey, newWalletKey } from '../wallet/keys.js';
import { annexCAnswer, owfDcapiTranscript, withNonce, type AnnexCAnswerOptions } from './support/annexCWallet.js';
import { leftOf, rightOf } from './support/either.js';
import { loopbackEgress } from './support/egress.js';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const PID = 'eu.europa.ec.eudi.pid.1';
const ORIGIN = 'https://shop.example';
const DAY = 86_400_000;

let ca: CertifiedKey;
let signer: CertifiedKey;
let mdl: OwfIssuerSigned;
let devicePrivateJwk: JWK;
let verify: PresentationVerifier;

const der = (certified: CertifiedKey): Uint8Array => new Uint8Array(certified.certificate.rawData);

test.before(async () => {
  // ISO/IEC 18013-5 (Annex B) wants countryName in the IACA and document signer names, and the independent library checks it.
  ca = await createCertificateAuthority({ commonName: 'Test IACA', country: 'DE' });
  signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', country: 'DE', subjectAltNames: [{ type: 'url', value: 'https://issuer.example' }] });
  const device = await newWalletKey();
  devicePrivateJwk = await exportWalletKey(device);
  const now = new Date();
  const issued = await buildIssuerSigned({
    docType: MDL,
    nameSpaces: new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann'], ['birth_date', fullDate('1964-08-12')], ['age_over_18', true]])]]),
    deviceKey: device.publicJwk,
    validFrom: new Date(now.getTime() - DAY),
    validUntil: new Date(now.getTime() + DAY),
    signer: { signer: keySigner(signer.keys.privateKey), x5chain: [der(signer)] },
    now,
  });
  mdl = OwfIssuerSigned.fromEncodedForOid4Vci(Buffer.from(issued).toString('base64url'));
  const trust = createTrustVerifier({ verifyTrustAnchor: true, anchors: [ca.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 }), policy: 'enforce' });
  const status = createCredentialStatusChecker({ policy: 'enforce', client: createStatusListClient({ fetch: { egress: loopbackEgress, timeoutMs: 1000, maxBytes: 1 << 20 }, trust, cacheMaxSeconds: 60, cacheMaxBytes: 1 << 20 }) });
  verify = createPresentationVerifier(trust, status, silentLogger);
});

/** A DCQL query as the connector decodes it from the integrator's JSON. */
const dcql = (json: unknown): DcqlQuery => {
  const decoded = DcqlQuery.decode(json);
  if (isLeft(decoded)) throw new Error('not a DCQL query');
  return decoded.right;
};

const mdlQuery = (claims: unknown[] = [{ path: [NS, 'family_name'] }, { path: [NS, 'age_over_18'], intent_to_retain: true }]): DcqlQuery =>
  dcql({ credentials: [{ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims }] });

const recipientKey = (): JWK => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;

const publicPart = ({ kty, crv, x, y }: JWK): JWK => ({ kty, crv, x, y });

/** A session as the connector records it, and the request `data` it hands the page. */
const newSession = (dcqlQuery: DcqlQuery = mdlQuery()) => {
  const recipientPrivateKey = recipientKey();
  const request: SealedRequest = { dcqlQuery, transactionData: [], redirectUri: null };
  const session: AnnexCSession = { request, clientId: 'x509_hash:Hb3L6jB7lqDvJ3aB4hL1vZ6pG1x1j1C0y3Xo2Q5e9sM', nonce: randomBytes(32).toString('base64url'), recipientPrivateKey, tenantId: 'tenant-1' };
  return { session, data: annexCRequestData(dcqlQuery, session.nonce, publicPart(recipientPrivateKey)) };
};

const answer = (data: ReturnType<typeof newSession>['data'], options: Partial<AnnexCAnswerOptions> = {}) =>
  annexCAnswer(data, { origin: ORIGIN, issuerSigned: [mdl], devicePrivateJwk, ...options });

const judge = (response: string, session: AnnexCSession, origin = ORIGIN): Promise<Either<AnnexCFailure, VerifiedPresentation>> =>
  verifyAnnexCResponse(response, session, origin, new Date(), verify);

const unreadable = (result: Either<AnnexCFailure, VerifiedPresentation>): string => {
  const failure = leftOf(result);
  if (failure._tag !== 'Unreadable') throw new Error(`expected an unreadable answer, got ${JSON.stringify(failure)}`);
  return failure.reason;
};

const unverified = (result: Either<AnnexCFailure, VerifiedPresentation>): string => {
  const failure = leftOf(result);
  if (failure._tag !== 'Unverified') throw new Error(`expected a verification failure, got ${JSON.stringify(failure)}`);
  return failure.failure.reason;
};

const DOES_NOT_OPEN = "the Annex C response does not open with the request key and this origin's SessionTranscript";

// --- the request, against a real verifier's

const multipaz = JSON.parse(readFileSync(new URL('../../test/fixtures/mdoc/multipaz-annex-c-request.json', import.meta.url), 'utf8')) as {
  origin: string;
  deviceRequest: string;
  encryptionInfo: string;
};

test("the Multipaz verifier's EncryptionInfo is rebuilt byte for byte from its nonce and recipient key", (t) => {
  const [type, parameters] = cborDecode(Buffer.from(multipaz.encryptionInfo, 'base64url')) as [string, Map<string, unknown>];
  t.is(type, 'dcapi');
  const key = rightOf(coseKeyToJwk(parameters.get('recipientPublicKey')));
  t.is(encryptionInfo(parameters.get('nonce') as Uint8Array, key), multipaz.encryptionInfo);
});

test("our DeviceRequest carries the Multipaz verifier's ItemsRequest bytes for the same element (it adds readerAuth)", (t) => {
  const theirs = cborDecode(Buffer.from(multipaz.deviceRequest, 'base64url')) as Map<string, unknown>;
  const ours = cborDecode(Buffer.from(deviceRequest([{ docType: MDL, nameSpaces: new Map([[NS, new Map([['age_over_18', false]])]]) }]), 'base64url')) as Map<string, unknown>;
  t.is(ours.get('version'), theirs.get('version'));
  const itemsRequest = (request: Map<string, unknown>) => Buffer.from(((request.get('docRequests') as Map<string, DataItem>[])[0]!.get('itemsRequest') as DataItem).buffer);
  t.deepEqual(itemsRequest(ours), itemsRequest(theirs));
  t.true(((theirs.get('docRequests') as Map<string, unknown>[])[0]!).has('readerAuth'));
  t.false(((ours.get('docRequests') as Map<string, unknown>[])[0]!).has('readerAuth'));
});

test('the independent library reads our DeviceRequest: one DocRequest per query, its elements, intent_to_retain as asked (false by default)', (t) => {
  const query = dcql({
    credentials: [
      { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'] }, { path: [NS, 'portrait'], intent_to_retain: true }] },
      { id: 'pid', format: 'mso_mdoc', meta: { doctype_value: PID }, claims: [{ path: [PID, 'birth_date'], intent_to_retain: false }] },
    ],
  });
  const data = annexCRequestData(query, randomBytes(32).toString('base64url'), publicPart(recipientKey()));
  const parsed = DeviceRequest.decode(Buffer.from(data.deviceRequest, 'base64url'));
  t.is(parsed.version, '1.0');
  t.deepEqual(
    parsed.docRequests.map((r) => [r.itemsRequest.docType, Object.fromEntries([...r.itemsRequest.namespaces].map(([ns, elements]) => [ns, Object.fromEntries(elements)]))]),
    [
      [MDL, { [NS]: { family_name: false, portrait: true } }],
      [PID, { [PID]: { birth_date: false } }],
    ],
  );
});

test("EncryptionInfo names the session's nonce bytes and recipient key; the SessionTranscript equals one built with another CBOR encoder", (t) => {
  const { session, data } = newSession();
  const [type, parameters] = cborDecode(Buffer.from(data.encryptionInfo, 'base64url')) as [string, Map<string, unknown>];
  t.is(type, 'dcapi');
  t.deepEqual(Buffer.from(parameters.get('nonce') as Uint8Array), Buffer.from(session.nonce, 'base64url'));
  t.deepEqual(rightOf(coseKeyToJwk(parameters.get('recipientPublicKey'))), publicPart(session.recipientPrivateKey));
  const ours = sessionTranscriptBytes({ encryptionInfo: data.encryptionInfo, origin: ORIGIN });
  t.deepEqual(Buffer.from(ours), Buffer.from(owfDcapiTranscript(data.encryptionInfo, ORIGIN).encode()));
  t.notDeepEqual(Buffer.from(ours), Buffer.from(sessionTranscriptBytes({ encryptionInfo: data.encryptionInfo, origin: `${ORIGIN}/` })));
});

// --- answers

test('an answer from the independent holder, sealed by the independent HPKE, verifies with the requested elements', async (t) => {
  const { session, data } = newSession();
  const verified = rightOf(await judge((await answer(data)).response, session));
  t.is(verified.credentials['mdl']?.length, 1);
  t.like(verified.credentials['mdl']?.[0], { format: 'mso_mdoc', doctype: MDL, issuer: 'https://issuer.example', isTrusted: true, kbSignatureIsValid: true });
  t.deepEqual(verified.credentials['mdl']?.[0]?.claims, { [NS]: { family_name: 'Mustermann', age_over_18: true } });
});

test('an answer sealed to another key does not open', async (t) => {
  const { session, data } = newSession();
  const other = recipientKey();
  const sealTo = Buffer.concat([Buffer.from([4]), Buffer.from(other.x!, 'base64url'), Buffer.from(other.y!, 'base64url')]);
  t.is(unreadable(await judge((await answer(data, { sealTo })).response, session)), DOES_NOT_OPEN);
});

test("an answer made on another page (another origin in its SessionTranscript) does not open for this session's origin", async (t) => {
  const { session, data } = newSession();
  const relayed = (await answer(data, { origin: 'https://attacker.example' })).response;
  t.is(unreadable(await judge(relayed, session)), DOES_NOT_OPEN);
  // The same answer is whole: it opens and verifies for the origin it was made on.
  t.true(isLeft(await judge(relayed, session)) && !isLeft(await judge(relayed, session, 'https://attacker.example')));
});

test('a device signature over another origin\'s SessionTranscript is refused even when the sealing is right', async (t) => {
  const { session, data } = newSession();
  const response = (await answer(data, { signedOrigin: 'https://attacker.example' })).response;
  t.is(unverified(await judge(response, session)), "deviceSignature does not verify with the MSO device key over this request's SessionTranscript");
});

test('an answer to another EncryptionInfo (another nonce for the same key) does not open', async (t) => {
  const { session, data } = newSession();
  const response = (await answer(data, { transcriptEncryptionInfo: withNonce(data.encryptionInfo, randomBytes(32)) })).response;
  t.is(unreadable(await judge(response, session)), DOES_NOT_OPEN);
});

test('an answer to another session (its own nonce and key) does not open for this one', async (t) => {
  const first = newSession();
  const second = newSession();
  t.is(unreadable(await judge((await answer(first.data)).response, second.session)), DOES_NOT_OPEN);
});

test('a changed byte of the cipherText is refused', async (t) => {
  const { session, data } = newSession();
  const tamper = (cipherText: Uint8Array) => {
    const changed = Uint8Array.from(cipherText);
    changed[changed.length >> 1]! ^= 1;
    return changed;
  };
  t.is(unreadable(await judge((await answer(data, { tamper })).response, session)), DOES_NOT_OPEN);
});

test('an EncryptedResponse that is not of type "dcapi", or not one at all, is refused by name', async (t) => {
  const { session, data } = newSession();
  t.is(unreadable(await judge((await answer(data, { type: 'openid4vp' })).response, session)), 'the Annex C response is of type "openid4vp", not "dcapi"');
  t.is(unreadable(await judge('not*base64url', session)), 'the Annex C response is not base64url');
  t.is(unreadable(await judge(Buffer.from(cborEncode(['dcapi'])).toString('base64url'), session)), 'the Annex C response is not an EncryptedResponse ["dcapi", {enc, cipherText}]');
  const noEnc = Buffer.from(cborEncode(['dcapi', new Map([['cipherText', new Uint8Array(32)]])])).toString('base64url');
  t.is(unreadable(await judge(noEnc, session)), 'the Annex C response lacks enc or cipherText as byte strings');
  t.is(unreadable(await judge(Buffer.from([0xff]).toString('base64url'), session)), 'the Annex C response is not one well-formed CBOR data item');
});

test('a sealed plaintext that is not a DeviceResponse is refused', async (t) => {
  const { session, data } = newSession();
  t.is(unreadable(await judge((await answer(data, { plaintext: new Uint8Array([0xa1]) })).response, session)), 'the decrypted DeviceResponse is not one well-formed CBOR data item');
  t.is(unverified(await judge((await answer(data, { plaintext: cborEncode([1, 2]) })).response, session)), 'DeviceResponse is not a CBOR map');
  const noDocuments = cborEncode(new Map<string, unknown>([['version', '1.0'], ['status', 0]]));
  t.is(unverified(await judge((await answer(data, { plaintext: noDocuments })).response, session)), 'DeviceResponse holds no documents');
  const failed = cborEncode(new Map<string, unknown>([['version', '1.0'], ['documents', []], ['status', 10]]));
  t.is(unverified(await judge((await answer(data, { plaintext: failed })).response, session)), 'DeviceResponse status is 10, not 0 (OK)');
});

test('the DCQL query is judged on the answer: a missing credential, a missing element', async (t) => {
  const both = newSession(dcql({
    credentials: [
      { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'] }] },
      { id: 'pid', format: 'mso_mdoc', meta: { doctype_value: PID }, claims: [{ path: [PID, 'family_name'] }] },
    ],
  }));
  // The wallet holds no PID and answers the mDL part alone.
  const mdlPart = { deviceRequest: newSession().data.deviceRequest, encryptionInfo: both.data.encryptionInfo };
  t.is(unverified(await judge((await answer(mdlPart)).response, both.session)), 'vp_token lacks the requested credential(s) pid');
  const element = newSession(mdlQuery([{ path: [NS, 'family_name'] }, { path: [NS, 'resident_city'] }]));
  // The credential has no resident_city: the wallet answers with the rest.
  const withoutIt = { deviceRequest: newSession(mdlQuery([{ path: [NS, 'family_name'] }])).data.deviceRequest, encryptionInfo: element.data.encryptionInfo };
  t.is(unverified(await judge((await answer(withoutIt)).response, element.session)), `requested element ${NS}/resident_city is not returned`);
});

test('a document of a docType the request did not ask for is refused', async (t) => {
  const pidOnly = newSession(dcql({ credentials: [{ id: 'pid', format: 'mso_mdoc', meta: { doctype_value: PID }, claims: [{ path: [PID, 'family_name'] }] }] }));
  // The holder answers an mDL request, but the session asked for a PID.
  const { data } = newSession();
  const response = await answer({ deviceRequest: data.deviceRequest, encryptionInfo: pidOnly.data.encryptionInfo });
  t.is(unverified(await judge(response.response, pidOnly.session)), `the DeviceResponse holds a document of docType "${MDL}", which the request did not ask for`);
});

// --- which queries Annex C can ask

test('Annex C asks mdoc-only queries, each docType once', (t) => {
  t.deepEqual(annexCQueryProblems(mdlQuery(), 'body.dcql_query'), []);
  const mixed = dcql({ credentials: [...mdlQuery().credentials, { id: 'sd', format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] }, claims: [{ path: ['given_name'] }] }] });
  t.deepEqual(annexCQueryProblems(mixed, 'body.dcql_query'), [
    { location: 'body.dcql_query.credentials[1].format', message: 'org-iso-mdoc asks for mdocs only; this query is not mso_mdoc', value: 'dc+sd-jwt' },
  ]);
  const twice = dcql({ credentials: [...mdlQuery().credentials, { ...mdlQuery().credentials[0]!, id: 'mdl2' }] });
  t.deepEqual(annexCQueryProblems(twice, 'body.dcql_query'), [
    { location: 'body.dcql_query.credentials[1].meta.doctype_value', message: 'org-iso-mdoc tells documents apart by docType; another query asks the same one', value: MDL },
  ]);
});
