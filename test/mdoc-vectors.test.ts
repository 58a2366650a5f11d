// The mdoc core against bytes made by others: the OpenID4VP 1.0 Appendix B.2.6.1 and B.2.6.2
// examples (the handover info, the handover and the SessionTranscript, by redirect and over the
// Digital Credentials API), a DeviceResponse from a real
// wallet app (Paradym) for a PID, and the ISO/IEC 18013-5 Annex D DeviceResponse. Origins of the
// files: test/fixtures/mdoc/README.md.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { isLeft } from 'fp-ts/lib/Either.js';
import { certificatesFromPem } from '../src/crypto/certificates.js';
import { decodeCbor, encodeCbor, isMap } from '../src/mdoc/cbor.js';
import { verifyDeviceResponse, type DeviceResponseExpectations } from '../src/mdoc/deviceResponse.js';
import { parseIssuerSigned, verifyIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { jwkThumbprintBytes, openID4VPDCAPIHandover, openID4VPHandover, sessionTranscriptBytes } from '../src/mdoc/sessionTranscript.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import { leftOf, rightOf } from './support/either.js';
import { loopbackEgress } from './support/egress.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/mdoc/${name}`, import.meta.url), 'utf8').trim();
const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// --- OpenID4VP 1.0, B.2.6.1

const specInfo = {
  clientId: 'x509_san_dns:example.com',
  nonce: 'exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA',
  responseUri: 'https://example.com/response',
};
const specJwk = { kty: 'EC', crv: 'P-256', x: 'DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0', y: 'XtLM4-3h5o3HUH0MHVJV0kyq0iBlrBwlh8qEDMZ4-Pc', use: 'enc', alg: 'ECDH-ES', kid: '1' };

test('OpenID4VP B.2.6.1: the JWK thumbprint, OpenID4VPHandoverInfo, OpenID4VPHandover and SessionTranscript byte for byte', async (t) => {
  const jwkThumbprint = await jwkThumbprintBytes(specJwk);
  t.is(Buffer.from(jwkThumbprint).toString('hex'), '4283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6bd669047');
  t.deepEqual(
    Buffer.from(encodeCbor([specInfo.clientId, specInfo.nonce, jwkThumbprint, specInfo.responseUri])),
    hex(`847818783530395f73616e5f646e733a6578616d706c652e636f6d782b6578633767
         426b786a7831726463397564527276654b7653734a4971383061766c58654c486847
         7771744158204283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6
         bd669047781c68747470733a2f2f6578616d706c652e636f6d2f726573706f6e7365`),
  );
  t.deepEqual(
    Buffer.from(encodeCbor(openID4VPHandover({ ...specInfo, jwkThumbprint }))),
    hex('82714f70656e494434565048616e646f7665725820048bc053c00442af9b8eed494cefdd9d95240d254b046b11b68013722aad38ac'),
  );
  t.deepEqual(
    Buffer.from(sessionTranscriptBytes({ ...specInfo, jwkThumbprint })),
    hex('83f6f682714f70656e494434565048616e646f7665725820048bc053c00442af9b8eed494cefdd9d95240d254b046b11b68013722aad38ac'),
  );
});

// --- OpenID4VP 1.0, B.2.6.2: the same key and nonce, presented over the Digital Credentials API to https://example.com

test('OpenID4VP B.2.6.2: OpenID4VPDCAPIHandoverInfo, OpenID4VPDCAPIHandover and the DC API SessionTranscript byte for byte', async (t) => {
  const dcApiInfo = { origin: 'https://example.com', nonce: specInfo.nonce, jwkThumbprint: await jwkThumbprintBytes(specJwk) };
  t.deepEqual(
    Buffer.from(encodeCbor([dcApiInfo.origin, dcApiInfo.nonce, dcApiInfo.jwkThumbprint])),
    hex(`837368747470733a2f2f6578616d706c652e636f6d782b6578633767426b786a7831
         726463397564527276654b7653734a4971383061766c58654c486847777174415820
         4283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6bd669047`),
  );
  t.deepEqual(
    Buffer.from(encodeCbor(openID4VPDCAPIHandover(dcApiInfo))),
    hex('82764f70656e4944345650444341504948616e646f7665725820fbece366f4212f9762c74cfdbf83b8c69e371d5d68cea09cb4c48ca6daab761a'),
  );
  t.deepEqual(
    Buffer.from(sessionTranscriptBytes(dcApiInfo)),
    hex('83f6f682764f70656e4944345650444341504948616e646f7665725820fbece366f4212f9762c74cfdbf83b8c69e371d5d68cea09cb4c48ca6daab761a'),
  );
  // The origin goes in bare: prefixed with origin: it is another handover.
  t.notDeepEqual(Buffer.from(sessionTranscriptBytes({ ...dcApiInfo, origin: 'origin:https://example.com' })), Buffer.from(sessionTranscriptBytes(dcApiInfo)));
});

test('an unencrypted response puts null (f6) in place of the thumbprint', (t) => {
  const encrypted = sessionTranscriptBytes({ ...specInfo, jwkThumbprint: new Uint8Array(32) });
  const plain = sessionTranscriptBytes({ ...specInfo, jwkThumbprint: null });
  t.notDeepEqual(Buffer.from(plain), Buffer.from(encrypted));
  t.is(plain.length, 3 + 19 + 34);
});

// --- Paradym (a real wallet) presenting a PID to the Animo playground, OpenID4VP 1.0

const paradym = fixture('animo-mdoc-05-device-response.b64u');
const [paradymSigner, paradymRoot] = certificatesFromPem(fixture('animo-mdoc-05-certificates.pem'));
const PID = 'eu.europa.ec.eudi.pid.1';
const paradymRequest: DeviceResponseExpectations = {
  docType: PID,
  now: new Date('2026-01-12T00:00:00Z'),
  handover: {
    clientId: 'x509_san_dns:playground.animo.id',
    nonce: 'LMGPB6k--THpBUSkEBvLxmdMIi3Ee1fjHXXUUzBVa04',
    jwkThumbprint: hex('61a29f269176244d397cae26f7f80ab196bffcb65fe3052b540c78073dab7c1e'),
    responseUri: 'https://playground.animo.id/oid4vp/8caaebcc-d48c-471b-86b0-a534e15c4774/authorize?session=6c115dbc-1364-4e9f-a325-173eeec01a5a',
  },
};

test('the Paradym DeviceResponse verifies: issuer signature, MSO, digests and the device signature over its request', (t) => {
  const verified = rightOf(verifyDeviceResponse(paradym, paradymRequest));
  t.is(verified.docType, PID);
  t.deepEqual(verified.claims, { [PID]: { given_name: 'Erika', family_name: 'Mustermann' } });
  t.true(Buffer.from(verified.chain[0]?.rawData ?? new ArrayBuffer(0)).equals(Buffer.from(paradymSigner?.rawData ?? new ArrayBuffer(1))));
  t.is(verified.mso.validityInfo.validUntil.toISOString(), '2027-01-08T11:35:34.000Z');
  t.is(verified.mso.deviceKey.kty, 'EC');
});

test('its issuer chain resolves to the Animo root with the same trust judgement as an SD-JWT VC issuer', async (t) => {
  const verified = rightOf(verifyDeviceResponse(paradym, paradymRequest));
  const crl = createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 });
  const anchored = createTrustVerifier({ verifyTrustAnchor: true, anchors: paradymRoot ? [paradymRoot] : [], crl, policy: 'enforce' });
  t.deepEqual(rightOf(await anchored.verify(verified.chain, paradymRequest.now)).trust, { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: false });
  const elsewhere = createTrustVerifier({ verifyTrustAnchor: true, anchors: [], crl, policy: 'enforce' });
  t.is(leftOf(await elsewhere.verify(verified.chain, paradymRequest.now)).reason, 'issuer chain does not resolve to a configured trust anchor');
});

const DEVICE_SIGNATURE_FAILS = "deviceSignature does not verify with the MSO device key over this request's SessionTranscript";

for (const [what, handover] of [
  ['another nonce', { nonce: 'LMGPB6k--THpBUSkEBvLxmdMIi3Ee1fjHXXUUzBVa05' }],
  ['another client_id', { clientId: 'x509_san_dns:verifier.example' }],
  ['another response_uri', { responseUri: 'https://playground.animo.id/oid4vp/other/authorize' }],
  ['another thumbprint', { jwkThumbprint: new Uint8Array(32) }],
  ['no thumbprint (as if unencrypted)', { jwkThumbprint: null }],
] as const) {
  test(`the Paradym DeviceResponse is refused for a SessionTranscript with ${what}`, (t) => {
    const reason = leftOf(verifyDeviceResponse(paradym, { ...paradymRequest, handover: { ...paradymRequest.handover, ...handover } }));
    t.is(reason, DEVICE_SIGNATURE_FAILS);
  });
}

test('the Paradym DeviceResponse is refused before its MSO validFrom and from its validUntil on', (t) => {
  t.is(leftOf(verifyDeviceResponse(paradym, { ...paradymRequest, now: new Date('2026-01-07T23:59:59Z') })), 'MSO is not valid before 2026-01-08T00:00:00.000Z');
  t.is(leftOf(verifyDeviceResponse(paradym, { ...paradymRequest, now: new Date('2027-01-08T11:35:34Z') })), 'MSO expired at 2027-01-08T11:35:34.000Z');
});

test('the Paradym DeviceResponse is refused for a query asking another docType', (t) => {
  t.is(leftOf(verifyDeviceResponse(paradym, { ...paradymRequest, docType: 'org.iso.18013.5.1.mDL' })), 'document docType "eu.europa.ec.eudi.pid.1" is not the requested org.iso.18013.5.1.mDL');
});

test('a changed byte in an element of the Paradym DeviceResponse breaks its digest', (t) => {
  const bytes = Buffer.from(paradym, 'base64url');
  const at = bytes.indexOf(Buffer.from('Erika'));
  t.true(at > 0);
  bytes[at] = 'U'.charCodeAt(0);
  t.is(leftOf(verifyDeviceResponse(bytes.toString('base64url'), paradymRequest)), `element ${PID}/given_name does not match its digest in the MSO`);
});

// --- ISO/IEC 18013-5 Annex D

const annexD = hex(fixture('iso-18013-5-annex-d-device-response.hex'));
const MDL = 'org.iso.18013.5.1.mDL';

test('the ISO 18013-5 Annex D DeviceResponse: its issuer-signed part verifies at a time within its validity', (t) => {
  const response = rightOf(decodeCbor(annexD));
  const document = isMap(response) ? (response.get('documents') as unknown[])[0] : undefined;
  const issuerSigned = rightOf(parseIssuerSigned(isMap(document) ? document.get('issuerSigned') : undefined));
  const verified = rightOf(verifyIssuerSigned(issuerSigned, { docType: MDL, now: new Date('2020-10-01T14:00:00Z') }));
  const mdl = verified.claims['org.iso.18013.5.1'] ?? {};
  t.is(mdl['family_name'], 'Doe');
  t.is(mdl['document_number'], '123456789');
  // full-date (tag 1004) elements as YYYY-MM-DD; the portrait as base64url
  t.is(mdl['issue_date'], '2019-10-20');
  t.is(mdl['expiry_date'], '2024-10-20');
  t.regex(String(mdl['portrait']), /^[A-Za-z0-9_-]+$/);
  t.true(isLeft(verifyIssuerSigned(issuerSigned, { docType: MDL, now: new Date('2021-10-01T13:30:02Z') })));
});

test('the ISO 18013-5 Annex D DeviceResponse is refused: it authenticates the device by deviceMac', (t) => {
  const reason = leftOf(verifyDeviceResponse(annexD.toString('base64url'), { docType: MDL, now: new Date('2020-10-01T14:00:00Z'), handover: paradymRequest.handover }));
  t.is(reason, 'device authentication by deviceMac cannot be checked: OpenID4VP gives the verifier no key for it; a deviceSignature is required');
});
