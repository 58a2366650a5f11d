// mdocs across implementations: what we issue is parsed and verified by the independent
// @owf/mdoc library and presented by it as a holder; what that library issues and presents, we
// verify; what our wallet presents, it verifies. Then every check of a DeviceResponse refuses the
// one thing a test breaks.
import { keySigner } from '../src/crypto/signer.js';
import test from 'ava';
import { exportJWK, type JWK } from 'jose';
import {
  CoseKey,
  DateOnly,
  DeviceKey,
  DeviceRequest,
  DeviceResponse,
  DocRequest,
  Holder,
  Issuer,
  IssuerSigned as OwfIssuerSigned,
  ItemsRequest,
  SessionTranscript,
  SignatureAlgorithm,
  Verifier,
} from '@owf/mdoc';
import { createCertificateAuthority, createLeafCertificate, type CertifiedKey } from '../src/crypto/certificates.js';
import { fullDate } from '../src/mdoc/claims.js';
import { verifyDeviceResponse, type DeviceResponseExpectations } from '../src/mdoc/deviceResponse.js';
import { buildIssuerSigned, type IssuerSignedInput } from '../src/mdoc/issuerSigned.js';
import { jwkThumbprintBytes, type OpenID4VPHandoverInfo } from '../src/mdoc/sessionTranscript.js';
import { newWalletKey, type WalletKey } from '../wallet/keys.js';
import { presentMdoc, readIssuerSigned, type PresentMdocOptions } from '../wallet/mdoc.js';
import { leftOf, rightOf } from './support/either.js';
import { owfMdocContext } from './support/owfMdoc.js';

const MDL = 'org.iso.18013.5.1.mDL';
const MDL_NS = 'org.iso.18013.5.1';
const PID = 'eu.europa.ec.eudi.pid.1';
const DAY = 86_400_000;

let ca: CertifiedKey;
let signer: CertifiedKey;
let device: WalletKey;
let devicePrivateJwk: JWK;
let handover: OpenID4VPHandoverInfo;
/** ourMdl() without overrides, issued once. */
let standardMdl: string;
const portrait = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]);

test.before(async () => {
  // ISO/IEC 18013-5 (Annex B) wants countryName in the IACA and document signer names, and the independent library checks it.
  ca = await createCertificateAuthority({ commonName: 'Test IACA', country: 'DE' });
  signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', country: 'DE', subjectAltNames: [{ type: 'url', value: 'https://issuer.example' }] });
  device = await newWalletKey();
  devicePrivateJwk = await exportJWK(device.privateKey);
  const encryptionKey = await newWalletKey();
  handover = {
    clientId: 'x509_hash:Hb3L6jB7lqDvJ3aB4hL1vZ6pG1x1j1C0y3Xo2Q5e9sM',
    nonce: 'n-0S6_WzA2Mj-mdoc',
    jwkThumbprint: await jwkThumbprintBytes(encryptionKey.publicJwk),
    responseUri: 'https://verifier.example/oidc4vp/abc/response',
  };
  standardMdl = await ourMdl();
});

const der = (certified: CertifiedKey): Uint8Array => new Uint8Array(certified.certificate.rawData);

const ourMdl = async (overrides: Partial<IssuerSignedInput> = {}): Promise<string> => {
  const now = new Date();
  return Buffer.from(
    await buildIssuerSigned({
      docType: MDL,
      nameSpaces: new Map([[MDL_NS, new Map<string, unknown>([
        ['family_name', 'Mustermann'],
        ['given_name', 'Erika'],
        ['birth_date', fullDate('1964-08-12')],
        ['issue_date', fullDate('2024-01-02')],
        ['expiry_date', fullDate('2034-01-01')],
        ['portrait', portrait],
        ['driving_privileges', [new Map<string, unknown>([['vehicle_category_code', 'B'], ['issue_date', fullDate('2024-01-02')]])]],
        ['age_over_18', true],
      ])]]),
      deviceKey: device.publicJwk,
      validFrom: new Date(now.getTime() - DAY),
      validUntil: new Date(now.getTime() + 365 * DAY),
      signer: { signer: keySigner(signer.keys.privateKey), x5chain: [der(signer)] },
      now,
      ...overrides,
    }),
  ).toString('base64url');
};

const expected = (overrides: Partial<DeviceResponseExpectations> = {}): DeviceResponseExpectations => ({ docType: MDL, handover, now: new Date(), ...overrides });

const owfTranscript = (): Promise<SessionTranscript> =>
  SessionTranscript.forOid4Vp({ clientId: handover.clientId, nonce: handover.nonce, responseUri: handover.responseUri, jwkThumbprint: handover.jwkThumbprint ?? undefined }, owfMdocContext);

/** The independent library as the holder: a DeviceResponse for the requested elements, base64url. */
const owfPresent = async (issuerSigned: OwfIssuerSigned, docType: string, namespace: string, elements: readonly string[]): Promise<string> => {
  const deviceRequest = DeviceRequest.create({
    docRequests: [DocRequest.create({ itemsRequest: ItemsRequest.create({ docType, namespaces: { [namespace]: Object.fromEntries(elements.map((e) => [e, false])) } }) })],
  });
  const response = await Holder.createDeviceResponseForDeviceRequest(
    { deviceRequest, issuerSigned: [issuerSigned], sessionTranscript: await owfTranscript(), signature: { signingKey: CoseKey.fromJwk({ ...devicePrivateJwk, alg: 'ES256' }) } },
    owfMdocContext,
  );
  return response.encodedForOid4Vp;
};

// --- both directions

test('an mDL we issue is accepted by the independent library, with its values as the types the mDL defines', async (t) => {
  const issued = OwfIssuerSigned.fromEncodedForOid4Vci(standardMdl);
  await t.notThrowsAsync(Holder.verifyIssuerSigned({ issuerSigned: issued, trustedCertificates: [der(ca)] }, owfMdocContext));
  const claims = issued.getPrettyClaims(MDL_NS) as Record<string, unknown>;
  t.is(claims['family_name'], 'Mustermann');
  t.true(claims['birth_date'] instanceof DateOnly);
  t.is(String(claims['birth_date']), '1964-08-12');
  t.deepEqual(Buffer.from(claims['portrait'] as Uint8Array), portrait);
});

test('an mDL we issue, presented by the independent library, verifies here with the requested elements only', async (t) => {
  const presentation = await owfPresent(OwfIssuerSigned.fromEncodedForOid4Vci(standardMdl), MDL, MDL_NS, ['family_name', 'birth_date', 'portrait', 'driving_privileges']);
  const verified = rightOf(verifyDeviceResponse(presentation, expected()));
  t.deepEqual(verified.claims, {
    [MDL_NS]: {
      family_name: 'Mustermann',
      birth_date: '1964-08-12',
      portrait: portrait.toString('base64url'),
      driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2024-01-02' }],
    },
  });
});

test('an mDL and a PID issued and presented by the independent library verify here', async (t) => {
  const now = new Date();
  for (const [docType, namespace, values] of [
    [MDL, MDL_NS, { family_name: 'Doe', given_name: 'Jane', birth_date: new DateOnly('1990-01-01'), document_number: 'X1' }],
    [PID, PID, { family_name: 'Mustermann', given_name: 'Erika', birth_date: new DateOnly('1964-08-12'), nationality: ['DE'] }],
  ] as const) {
    const issuer = new Issuer(docType, owfMdocContext).addIssuerNamespace(namespace, { ...values });
    const issued = await issuer.sign({
      signingKey: CoseKey.fromJwk((await exportJWK(signer.keys.privateKey)) as Record<string, unknown>),
      certificates: [der(signer)],
      algorithm: SignatureAlgorithm.ES256,
      digestAlgorithm: 'SHA-256',
      deviceKeyInfo: { deviceKey: DeviceKey.fromJwk(device.publicJwk as Record<string, unknown>) },
      validityInfo: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 30 * DAY) },
    });
    const presentation = await owfPresent(issued, docType, namespace, ['family_name', 'birth_date']);
    const verified = rightOf(verifyDeviceResponse(presentation, expected({ docType, now: new Date(now.getTime() + 1000) })));
    t.deepEqual(verified.claims, { [namespace]: { family_name: values.family_name, birth_date: String(values.birth_date) } }, docType);
  }
});

const ourPresentation = (overrides: Partial<PresentMdocOptions> = {}, credential = standardMdl): string =>
  presentMdoc(readIssuerSigned(credential), {
    docType: MDL,
    disclose: [[MDL_NS, 'family_name'], [MDL_NS, 'age_over_18']],
    deviceKey: device.privateKey,
    handover,
    ...overrides,
  });

test('what our wallet presents, the independent library verifies', async (t) => {
  const deviceResponse = DeviceResponse.fromEncodedForOid4Vp(ourPresentation());
  await t.notThrowsAsync(
    Verifier.verifyDeviceResponse({ deviceResponse, sessionTranscript: await owfTranscript(), trustedCertificates: [der(ca)] }, owfMdocContext),
  );
  t.deepEqual(rightOf(verifyDeviceResponse(ourPresentation(), expected())).claims, { [MDL_NS]: { family_name: 'Mustermann', age_over_18: true } });
});

// --- each check refuses what it is for

test('a changed element value is refused: its digest is not the one the MSO lists', (t) => {
  const tamper = (_: string, item: Uint8Array): Uint8Array => {
    const bytes = Buffer.from(item);
    const at = bytes.indexOf(Buffer.from('Mustermann'));
    if (at >= 0) bytes.write('Musterfrau', at);
    return bytes;
  };
  t.is(leftOf(verifyDeviceResponse(ourPresentation({ tamper }), expected())), `element ${MDL_NS}/family_name does not match its digest in the MSO`);
});

test('a document of another docType than the query asks is refused, and so is an MSO of another docType', (t) => {
  t.is(leftOf(verifyDeviceResponse(ourPresentation(), expected({ docType: PID }))), `document docType "${MDL}" is not the requested ${PID}`);
  // The document says PID and the device signs PID, but the issuer signed an mDL.
  const relabelled = ourPresentation({ docType: PID });
  t.is(leftOf(verifyDeviceResponse(relabelled, expected({ docType: PID }))), `MSO docType ${MDL} is not ${PID}`);
});

test('an MSO not yet valid, or expired, is refused', async (t) => {
  const now = new Date();
  const future = await ourMdl({ validFrom: new Date(now.getTime() + DAY), validUntil: new Date(now.getTime() + 2 * DAY) });
  t.regex(leftOf(verifyDeviceResponse(ourPresentation({}, future), expected())), /^MSO is not valid before /);
  const past = await ourMdl({ validFrom: new Date(now.getTime() - 2 * DAY), validUntil: new Date(now.getTime() - DAY) });
  t.regex(leftOf(verifyDeviceResponse(ourPresentation({}, past), expected())), /^MSO expired at /);
});

test('an MSO signed outside its signer certificate\'s validity is refused', async (t) => {
  const now = new Date();
  const backdated = await ourMdl({ now: new Date(signer.certificate.notBefore.getTime() - DAY), validFrom: new Date(now.getTime() - DAY) });
  t.regex(leftOf(verifyDeviceResponse(ourPresentation({}, backdated), expected())), /outside its signer certificate's validity$/);
});

test('a device signature by another key than the MSO\'s is refused', async (t) => {
  const other = await newWalletKey();
  t.is(leftOf(verifyDeviceResponse(ourPresentation({ deviceKey: other.privateKey }), expected())), "deviceSignature does not verify with the MSO device key over this request's SessionTranscript");
});

test('an issuerAuth not signed by its x5chain leaf is refused', async (t) => {
  const impostor = await createLeafCertificate(ca, { commonName: 'Impostor' });
  const forged = await ourMdl({ signer: { signer: keySigner(impostor.keys.privateKey), x5chain: [der(signer)] } });
  t.is(leftOf(verifyDeviceResponse(ourPresentation({}, forged), expected())), 'issuerAuth signature does not verify with the x5chain leaf certificate key');
});

test('a DeviceResponse whose status is not 0, or that holds two documents, is refused', (t) => {
  t.is(leftOf(verifyDeviceResponse(ourPresentation({ status: 10 }), expected())), 'DeviceResponse status is 10, not 0 (OK)');
  t.is(leftOf(verifyDeviceResponse(ourPresentation({ copies: 2 }), expected())), 'DeviceResponse does not hold exactly one document');
  t.is(leftOf(verifyDeviceResponse('not*base64url', expected())), 'mso_mdoc presentation is not base64url');
  t.is(leftOf(verifyDeviceResponse('oA', expected())), 'DeviceResponse version null is not 1.x');
});

test('IssuerSigned we build: random salts of 32 bytes and distinct random digest IDs, MSO 1.0 with SHA-256', (t) => {
  const issued = OwfIssuerSigned.fromEncodedForOid4Vci(standardMdl);
  const items = issued.issuerNamespaces?.issuerNamespaces.get(MDL_NS) ?? [];
  t.is(items.length, 8);
  t.true(items.every((item) => item.random.length === 32));
  t.is(new Set(items.map((item) => Buffer.from(item.random).toString('hex'))).size, 8);
  t.is(new Set(items.map((item) => item.digestId)).size, 8);
  const mso = issued.issuerAuth.mobileSecurityObject;
  t.is(mso.version, '1.0');
  t.is(mso.digestAlgorithm, 'SHA-256');
  t.is(mso.docType, MDL);
});
