// The wallet simulator's Digital Credentials API answers (wallet/dcApi.ts, annexC.ts), without a
// connector: the test builds each dc_api_request itself (a request object signed by an access
// certificate under a CA the wallet is told to trust; unsigned parameters; an Annex C
// DeviceRequest built by @owf/mdoc) and checks the answers with independent code: the JWE opened
// with jose, the SD-JWT VC and its KB-JWT verified by @sd-jwt/sd-jwt-vc, the OpenID4VP
// DeviceResponse by @owf/mdoc against the SessionTranscript that library builds; the Annex C box
// opened by @hpke/core's recipient side, its issuer side checked by @owf/mdoc and its device
// signature over the dcapi SessionTranscript with cbor2 and node:crypto. And the refusals: an origin the request does
// not expect, an access certificate outside the trust anchors, a client_id not its hash.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { decode as fromCbor, encode as cbor, Tag } from 'cbor2';
import { calculateJwkThumbprint, compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { DeviceRequest, DeviceResponse, DocRequest, Holder, ItemsRequest, SessionTranscript, Verifier } from '@owf/mdoc';
import { certificatesToPem, createCertificateAuthority, createLeafCertificate, x509HashClientId, x5cOf, type CertifiedKey } from '../src/crypto/certificates.js';
import { fullDate } from '../src/mdoc/claims.js';
import { keySigner } from '../src/crypto/signer.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { annexCSuite } from '../wallet/annexC.js';
import { answerDcApi } from '../wallet/commands.js';
import { answerDcApiRequest, type DcApiAnswer } from '../wallet/dcApi.js';
import type { DcApiBend } from '../wallet/dcApiWallet.js';
import { WalletFile } from '../wallet/store.js';
import { createTestIssuer, sd, type TestIssuer } from './support/credentials.js';
import { owfMdocContext } from './support/owfMdoc.js';
import { runScript, walletScript } from './support/processes.js';

const ORIGIN = 'https://shop.example';
const PID_VCT = 'urn:eudi:pid:1';
const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DAY = 86_400_000;

let directory: string;
let walletFile: string;
let anchorsFile: string;
let holderJwk: JWK;
let pidIssuer: TestIssuer;
let mdocCa: CertifiedKey;
let verifierCa: CertifiedKey;
let accessCertificate: CertifiedKey;
let encryption: { publicJwk: JWK; privateKey: CryptoKey };

test.before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'wallet-dc-api-'));
  walletFile = join(directory, 'wallet.json');
  const wallet = await WalletFile.open(walletFile);
  holderJwk = wallet.holderKey.publicJwk;
  pidIssuer = await createTestIssuer();
  const pid = await pidIssuer.issue({
    vct: PID_VCT,
    claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), birthdate: sd('1964-08-12') },
    holder: { keys: { privateKey: wallet.holderKey.privateKey, publicKey: (await importJWK(holderJwk, 'ES256')) as CryptoKey }, publicJwk: holderJwk },
  });
  await wallet.add({ credential: `${pid.jwt}~${Object.values(pid.disclosures).join('~')}~`, issuer: 'https://issuer.example', vct: PID_VCT, received_at: new Date().toISOString() });
  mdocCa = await createCertificateAuthority({ commonName: 'Test IACA', country: 'DE' });
  const signer = await createLeafCertificate(mdocCa, { commonName: 'Test Document Signer', country: 'DE', subjectAltNames: [{ type: 'url', value: 'https://mdl-issuer.example' }] });
  const now = new Date();
  const mdl = await buildIssuerSigned({
    docType: MDL,
    nameSpaces: new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann'], ['given_name', 'Erika'], ['birth_date', fullDate('1964-08-12')], ['age_over_18', true]])]]),
    deviceKey: holderJwk,
    validFrom: new Date(now.getTime() - DAY),
    validUntil: new Date(now.getTime() + DAY),
    signer: { signer: keySigner(signer.keys.privateKey), x5chain: [new Uint8Array(signer.certificate.rawData)] },
    now,
  });
  await wallet.add({ credential: Buffer.from(mdl).toString('base64url'), format: 'mso_mdoc', doctype: MDL, issuer: 'https://mdl-issuer.example', received_at: now.toISOString() });

  verifierCa = await createCertificateAuthority({ commonName: 'Test Access CA' });
  accessCertificate = await createLeafCertificate(verifierCa, { commonName: 'Shop Verifier' });
  anchorsFile = join(directory, 'anchors.pem');
  await writeFile(anchorsFile, certificatesToPem([verifierCa.certificate]));
  const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
  encryption = { publicJwk: { ...(await exportJWK(publicKey)), use: 'enc', alg: 'ECDH-ES', kid: 'response-key-1' }, privateKey };
});

test.after.always(async () => rm(directory, { recursive: true, force: true }));

const pidQuery = { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: [{ path: ['given_name'] }, { path: ['birthdate'] }] };
const mdlQuery = { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'] }, { path: [NS, 'age_over_18'] }] };

/** The request parameters as the connector sends them over the DC API (no response_uri, state or redirect_uri). */
const parameters = (nonce: string, credentials: unknown[]) => ({
  response_type: 'vp_token',
  response_mode: 'dc_api.jwt',
  nonce,
  dcql_query: { credentials },
  client_metadata: { jwks: { keys: [encryption.publicJwk] }, encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'] },
});

const signedRequest = async (nonce: string, credentials: unknown[], options: { signer?: CertifiedKey; expectedOrigins?: string[]; clientId?: string } = {}) => {
  const signer = options.signer ?? accessCertificate;
  const request = await new SignJWT({
    ...parameters(nonce, credentials),
    client_id: options.clientId ?? x509HashClientId(signer.certificate),
    expected_origins: options.expectedOrigins ?? ['https://other.example', ORIGIN],
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'oauth-authz-req+jwt', x5c: x5cOf([signer.certificate]) })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(signer.keys.privateKey);
  return { protocol: 'openid4vp-v1-signed', data: { request } };
};

const answer = (request: unknown, origin = ORIGIN, trusted = true): Promise<DcApiAnswer> =>
  answerDcApi(request, { file: walletFile, say: () => undefined, origin, ...(trusted ? { trustAnchorsFile: anchorsFile } : {}) });

/** The JWE (ECDH-ES, A128GCM, the key's kid) opened with the request's key: the authorization response parameters. */
const opened = async (jwe: string): Promise<{ vp_token: Record<string, string[]> }> => {
  const header = decodeProtectedHeader(jwe);
  if (header.alg !== 'ECDH-ES' || header.enc !== 'A128GCM' || header.kid !== 'response-key-1') throw new Error(`unexpected JWE header ${JSON.stringify(header)}`);
  const { plaintext } = await compactDecrypt(jwe, encryption.privateKey);
  return JSON.parse(new TextDecoder().decode(plaintext)) as { vp_token: Record<string, string[]> };
};

const sdJwtLibrary = async () =>
  new SDJwtVcInstance({
    hasher: digest,
    verifier: await ES256.getVerifier(await exportJWK(pidIssuer.leaf.keys.publicKey)),
    kbVerifier: await ES256.getVerifier(holderJwk),
  });

const sha256 = (bytes: Uint8Array | string): Buffer => createHash('sha256').update(bytes).digest();

test('a signed OpenID4VP request for an SD-JWT VC: a JWE to the request key, the KB-JWT bound to origin:<origin> and the nonce, only what was asked disclosed', async (t) => {
  const result = await answer([{ protocol: 'openid4vp-v1-multisigned', data: {} }, await signedRequest('nonce-sd-1', [pidQuery])]);
  t.is(result.origin, ORIGIN);
  t.is(result.protocol, 'openid4vp-v1-signed');
  t.deepEqual(Object.keys(result.data), ['response']);
  const response = await opened(result.data.response);
  t.deepEqual(Object.keys(response), ['vp_token'], 'no state over the DC API');
  const presentation = response.vp_token['pid']![0]!;
  const verified = await (await sdJwtLibrary()).verify(presentation, { keyBindingNonce: 'nonce-sd-1' });
  t.is(verified.kb?.payload.aud, `origin:${ORIGIN}`);
  t.is(verified.kb?.payload.nonce, 'nonce-sd-1');
  const sdJwt = presentation.slice(0, presentation.lastIndexOf('~') + 1);
  t.is(verified.kb?.payload['sd_hash'], sha256(sdJwt).toString('base64url'));
  const claims = verified.payload as Record<string, unknown>;
  t.is(claims['given_name'], 'Erika');
  t.is(claims['birthdate'], '1964-08-12');
  t.false('family_name' in claims);
});

test('an unsigned request: its client_id and expected_origins ignored, the KB-JWT still bound to the origin', async (t) => {
  const data = { ...parameters('nonce-unsigned', [pidQuery]), client_id: 'x509_hash:not-used', expected_origins: ['https://elsewhere.example'] };
  const result = await answer({ protocol: 'openid4vp-v1-unsigned', data });
  t.is(result.protocol, 'openid4vp-v1-unsigned');
  const presentation = (await opened(result.data.response)).vp_token['pid']![0]!;
  const verified = await (await sdJwtLibrary()).verify(presentation, { keyBindingNonce: 'nonce-unsigned' });
  t.is(verified.kb?.payload.aud, `origin:${ORIGIN}`);
});

test("an mdoc over OpenID4VP: the DeviceResponse verifies with @owf/mdoc against the OpenID4VPDCAPIHandover of the origin, nonce and the response key's thumbprint, and against no other", async (t) => {
  const result = await answer(await signedRequest('nonce-mdoc-1', [mdlQuery]));
  const deviceResponse = DeviceResponse.fromEncodedForOid4Vp((await opened(result.data.response)).vp_token['mdl']![0]!);
  const thumbprint = Buffer.from(await calculateJwkThumbprint(encryption.publicJwk, 'sha256'), 'base64url');
  const transcript = (origin: string, nonce: string) => SessionTranscript.forOid4VpDcApi({ origin, nonce, jwkThumbprint: thumbprint }, owfMdocContext);
  const trustedCertificates = [new Uint8Array(mdocCa.certificate.rawData)];
  await t.notThrowsAsync(Verifier.verifyDeviceResponse({ deviceResponse, sessionTranscript: await transcript(ORIGIN, 'nonce-mdoc-1'), trustedCertificates }, owfMdocContext));
  t.deepEqual(deviceResponse.documents?.[0]?.issuerSigned.getPrettyClaims(NS), { family_name: 'Mustermann', age_over_18: true });
  await t.throwsAsync(Verifier.verifyDeviceResponse({ deviceResponse, sessionTranscript: await transcript('https://other.example', 'nonce-mdoc-1'), trustedCertificates }, owfMdocContext));
  await t.throwsAsync(Verifier.verifyDeviceResponse({ deviceResponse, sessionTranscript: await transcript(ORIGIN, 'another-nonce'), trustedCertificates }, owfMdocContext));
});

/** An Annex C request (`org-iso-mdoc`) for `elements` of `docType`, the DeviceRequest built by @owf/mdoc; `label` replaces EncryptionInfo's "dcapi". */
const annexCRequest = async (docType: string, elements: string[], label = 'dcapi') => {
  const recipient = await annexCSuite().kem.generateKeyPair();
  const jwk = await crypto.subtle.exportKey('jwk', recipient.publicKey);
  const coseKey = new Map<number, unknown>([[1, 2], [-1, 1], [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))], [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))]]);
  const encryptionInfo = Buffer.from(cbor([label, new Map<string, unknown>([['nonce', new Uint8Array(sha256('annex-c-nonce'))], ['recipientPublicKey', coseKey]])])).toString('base64url');
  const namespaces = { [NS]: Object.fromEntries(elements.map((element) => [element, false])) };
  const deviceRequest = DeviceRequest.create({ docRequests: [DocRequest.create({ itemsRequest: ItemsRequest.create({ docType, namespaces }) })] });
  return { recipient, encryptionInfo, request: { protocol: 'org-iso-mdoc', data: { deviceRequest: Buffer.from(deviceRequest.encode()).toString('base64url'), encryptionInfo } } };
};

/** The dcapi SessionTranscript's CBOR, built here with cbor2. */
const annexCTranscript = (encryptionInfo: string, origin: string): Uint8Array => cbor([null, null, ['dcapi', new Uint8Array(sha256(cbor([encryptionInfo, origin])))]]);

/** Opens an Annex C answer's `["dcapi", {enc, cipherText}]` with @hpke/core's recipient side. */
const openAnnexC = (response: string, recipient: { privateKey: CryptoKey; publicKey: CryptoKey }, info: Uint8Array): Promise<ArrayBuffer> => {
  const [, sealed] = fromCbor(Buffer.from(response, 'base64url')) as [string, { enc: Uint8Array; cipherText: Uint8Array }];
  return annexCSuite().open({ recipientKey: recipient, enc: sealed.enc, info }, sealed.cipherText);
};

test('Annex C (org-iso-mdoc): the DeviceRequest answered with a DeviceResponse HPKE-sealed to recipientPublicKey, info the dcapi SessionTranscript', async (t) => {
  const { recipient, encryptionInfo, request: annexC } = await annexCRequest(MDL, ['given_name', 'age_over_18']);
  const request = [await signedRequest('nonce-not-chosen', [mdlQuery]), annexC];
  const result = await answer(request.reverse());
  t.is(result.protocol, 'org-iso-mdoc', 'the first protocol in the page order');
  const [label, sealed] = fromCbor(Buffer.from(result.data.response, 'base64url')) as [string, { enc: Uint8Array; cipherText: Uint8Array }];
  t.is(label, 'dcapi');
  t.deepEqual(Object.keys(sealed), ['enc', 'cipherText']);
  const transcript = (origin: string) => annexCTranscript(encryptionInfo, origin);
  const open = (origin: string) => openAnnexC(result.data.response, recipient, transcript(origin));
  await t.throwsAsync(open('https://other.example'), undefined, 'sealed with the origin in its info');
  const plaintext = new Uint8Array(await open(ORIGIN));
  // @owf/mdoc 0.6 knows no "dcapi" handover: it checks the issuer side and the disclosed elements;
  // the device signature over the dcapi SessionTranscript is checked here with cbor2 and node:crypto.
  const deviceResponse = DeviceResponse.decode(plaintext);
  const document = deviceResponse.documents?.[0];
  await t.notThrowsAsync(Holder.verifyIssuerSigned({ issuerSigned: document!.issuerSigned, trustedCertificates: [new Uint8Array(mdocCa.certificate.rawData)] }, owfMdocContext));
  t.deepEqual(document?.issuerSigned.getPrettyClaims(NS), { given_name: 'Erika', age_over_18: true });
  const raw = fromCbor(plaintext) as { documents: { docType: string; deviceSigned: { nameSpaces: Tag; deviceAuth: { deviceSignature: [Uint8Array, unknown, null, Uint8Array] } } }[] };
  const { docType, deviceSigned } = raw.documents[0]!;
  const [protectedHeader, , payload, signature] = deviceSigned.deviceAuth.deviceSignature;
  t.is(payload, null, 'detached');
  const signedFor = (origin: string): boolean => {
    const deviceAuthentication = cbor(new Tag(24, cbor(['DeviceAuthentication', fromCbor(transcript(origin)), docType, deviceSigned.nameSpaces])));
    const toBeSigned = cbor(['Signature1', protectedHeader, new Uint8Array(0), deviceAuthentication]);
    return verify('sha256', toBeSigned, { key: createPublicKey({ key: holderJwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, signature);
  };
  t.true(signedFor(ORIGIN));
  t.false(signedFor('https://other.example'));
});

// --- refusals

test('an origin not in expected_origins is refused (invalid_request), before anything is presented', async (t) => {
  const request = await signedRequest('nonce-origin', [pidQuery], { expectedOrigins: ['https://shop.example.evil', 'https://other.example'] });
  const error = await t.throwsAsync(answer(request));
  t.is(error?.message, `invalid_request: the origin ${ORIGIN} is not among the request's expected_origins (https://shop.example.evil, https://other.example)`);
  // Simple string comparison: a trailing slash is another origin string.
  await t.throwsAsync(answer(await signedRequest('nonce-origin', [pidQuery], { expectedOrigins: [`${ORIGIN}/`] })), { message: /is not among the request's expected_origins/ });
});

test("a request signed by an access certificate outside the wallet's trust anchors is refused; without trust anchors the simulator takes it", async (t) => {
  const otherCa = await createCertificateAuthority({ commonName: 'Unknown CA' });
  const untrusted = await createLeafCertificate(otherCa, { commonName: 'Not the shop' });
  const request = await signedRequest('nonce-untrusted', [pidQuery], { signer: untrusted });
  await t.throwsAsync(answer(request), { message: "request object: its x5c chain leads to none of the wallet's trust anchors" });
  t.is((await answer(request, ORIGIN, false)).protocol, 'openid4vp-v1-signed');
});

test('a signed request whose client_id is not the x509_hash of its signer, or whose signature does not verify, is refused', async (t) => {
  await t.throwsAsync(answer(await signedRequest('n', [pidQuery], { clientId: 'x509_hash:AAAA' })), { message: 'request object: client_id is not the x509_hash of the x5c leaf' });
  const { data } = await signedRequest('n', [pidQuery]);
  const [header, payload, signature] = data.request.split('.');
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), nonce: 'changed' })).toString('base64url');
  await t.throwsAsync(answer({ protocol: 'openid4vp-v1-signed', data: { request: `${header}.${forged}.${signature}` } }), {
    message: 'request object: the signature does not verify with the x5c leaf',
  });
});

test('no protocol the wallet answers, an unencrypted response mode, or a query the wallet cannot answer: refused', async (t) => {
  await t.throwsAsync(answer([{ protocol: 'openid4vp-v1-multisigned', data: {} }]), { message: /none of the protocols openid4vp-v1-multisigned is one this wallet answers/ });
  await t.throwsAsync(answer({ protocol: 'openid4vp-v1-unsigned', data: { ...parameters('n', [pidQuery]), response_mode: 'dc_api' } }), { message: /only encrypted responses \(dc_api\.jwt\)/ });
  const unknown = { ...pidQuery, meta: { vct_values: ['urn:other:1'] } };
  await t.throwsAsync(answer({ protocol: 'openid4vp-v1-unsigned', data: parameters('n', [unknown]) }), { message: 'cannot answer this request: no credential answers query "pid"' });
  for (const notAnOrigin of ['https://shop.example/checkout', 'shop.example']) {
    await t.throwsAsync(answer({ protocol: 'openid4vp-v1-unsigned', data: parameters('n', [pidQuery]) }, notAnOrigin), { message: `${notAnOrigin} is not an origin (scheme://host[:port], no path)` });
  }
});

test('the command line: `dc-api --json` prints {origin, protocol, data} on stdout, the steps on stderr; a refusal exits 1 with the reason', async (t) => {
  const request = JSON.stringify(await signedRequest('nonce-cli', [pidQuery]));
  const run = await runScript(walletScript, ['--wallet', walletFile, 'dc-api', '--origin', ORIGIN, '--trust-anchors', anchorsFile, '--json', request], {}, { timeoutMs: 60_000 });
  t.is(run.code, 0, run.stderr);
  const printed = JSON.parse(run.stdout) as DcApiAnswer;
  t.is(printed.origin, ORIGIN);
  t.is(printed.protocol, 'openid4vp-v1-signed');
  t.truthy((await opened(printed.data.response)).vp_token['pid']);
  t.regex(run.stderr, /request object verified: ES256 by the x5c leaf/);
  const plain = await runScript(walletScript, ['--wallet', walletFile, 'dc-api', '--origin', ORIGIN, request], {}, { timeoutMs: 60_000 });
  t.deepEqual(Object.keys(JSON.parse(plain.stdout) as object), ['response'], 'without --json, the data alone');
  const refused = await runScript(walletScript, ['--wallet', walletFile, 'dc-api', '--origin', 'https://evil.example', request], {}, { timeoutMs: 60_000 });
  t.is(refused.code, 1);
  t.is(refused.stdout, '');
  t.regex(refused.stderr, /wallet: invalid_request: the origin https:\/\/evil\.example is not among the request's expected_origins/);
});

test('Annex C: an encryptionInfo that is not ["dcapi", {nonce, recipientPublicKey}], or a DeviceRequest for a docType the wallet lacks, is refused', async (t) => {
  await t.throwsAsync(answer((await annexCRequest(MDL, ['given_name'], 'not-dcapi')).request), { message: 'org-iso-mdoc: encryptionInfo is not ["dcapi", {nonce, recipientPublicKey}]' });
  await t.throwsAsync(answer((await annexCRequest('org.example.other', ['given_name'])).request), { message: 'cannot answer this DeviceRequest: no credential answers query "docRequest 1"' });
  t.is((await answer((await annexCRequest(MDL, ['given_name'])).request)).protocol, 'org-iso-mdoc', 'the same request, well formed, for what the wallet holds');
});

test("the bends the connector's negative tests use each break what they name, and only that", async (t) => {
  const wallet = await WalletFile.open(walletFile);
  const bent = (request: unknown, bend: DcApiBend) => answerDcApiRequest(request, { origin: ORIGIN, holderKey: wallet.holderKey, credentials: wallet.credentials, bend });
  const clientId = x509HashClientId(accessCertificate.certificate);
  const sdJwt = (await opened((await bent(await signedRequest('nonce-bend', [pidQuery]), { audience: clientId })).data.response)).vp_token['pid']![0]!;
  t.is((await (await sdJwtLibrary()).verify(sdJwt, { keyBindingNonce: 'nonce-bend' })).kb?.payload.aud, clientId);

  const thumbprint = Buffer.from(await calculateJwkThumbprint(encryption.publicJwk, 'sha256'), 'base64url');
  const mdocVerifies = async (bend: DcApiBend, origin: string, nonce: string) => {
    const encoded = (await opened((await bent(await signedRequest('nonce-bend', [mdlQuery]), bend)).data.response)).vp_token['mdl']![0]!;
    const sessionTranscript = await SessionTranscript.forOid4VpDcApi({ origin, nonce, jwkThumbprint: thumbprint }, owfMdocContext);
    const deviceResponse = DeviceResponse.fromEncodedForOid4Vp(encoded);
    return Verifier.verifyDeviceResponse({ deviceResponse, sessionTranscript, trustedCertificates: [new Uint8Array(mdocCa.certificate.rawData)] }, owfMdocContext).then(() => true, () => false);
  };
  t.true(await mdocVerifies({ handoverOrigin: 'https://other.example' }, 'https://other.example', 'nonce-bend'));
  t.false(await mdocVerifies({ handoverOrigin: 'https://other.example' }, ORIGIN, 'nonce-bend'));
  t.true(await mdocVerifies({ handoverNonce: 'other-nonce' }, ORIGIN, 'other-nonce'));

  const other = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
  const elsewhere = await bent(await signedRequest('nonce-bend', [pidQuery]), { encryptTo: { ...(await exportJWK(other.publicKey)), alg: 'ECDH-ES' } });
  await t.throwsAsync(compactDecrypt(elsewhere.data.response, encryption.privateKey));
  await t.notThrowsAsync(compactDecrypt(elsewhere.data.response, other.privateKey));

  const { recipient, encryptionInfo, request } = await annexCRequest(MDL, ['given_name']);
  const otherOrigin = await bent(request, { handoverOrigin: 'https://other.example' });
  await t.throwsAsync(openAnnexC(otherOrigin.data.response, recipient, annexCTranscript(encryptionInfo, ORIGIN)));
  await t.notThrowsAsync(openAnnexC(otherOrigin.data.response, recipient, annexCTranscript(encryptionInfo, 'https://other.example')));
  const otherRecipient = await annexCSuite().kem.generateKeyPair();
  const otherJwk = await crypto.subtle.exportKey('jwk', otherRecipient.publicKey);
  const sealedElsewhere = await bent(request, { encryptTo: { kty: 'EC', crv: 'P-256', x: otherJwk.x!, y: otherJwk.y! } });
  await t.throwsAsync(openAnnexC(sealedElsewhere.data.response, recipient, annexCTranscript(encryptionInfo, ORIGIN)));
  await t.notThrowsAsync(openAnnexC(sealedElsewhere.data.response, otherRecipient, annexCTranscript(encryptionInfo, ORIGIN)));
});
