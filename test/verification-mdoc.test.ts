// The checks on one presented mdoc behind the verification's credential interface: the same trust
// judgement, trusted_authorities, status checker and credential object fields as an SD-JWT VC,
// with the mdoc's own checks (src/mdoc) before them and only the requested elements delivered.
import { keySigner } from '../src/crypto/signer.js';
import test from 'ava';
import { right } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint } from 'jose';
import { createCertificateAuthority, createCrl, createLeafCertificate, type CertifiedKey } from '../src/crypto/certificates.js';
import { fullDate } from '../src/mdoc/claims.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { jwkThumbprintBytes, type OpenID4VPHandoverInfo } from '../src/mdoc/sessionTranscript.js';
import { createCredentialStatusChecker, type CredentialStatusChecker } from '../src/verification/status/statusCheck.js';
import { buildStatusList } from '../src/statusList/statusList.js';
import type { StatusListClient } from '../src/verification/status/statusListClient.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier, type TrustVerifier } from '../src/trust/issuerTrust.js';
import { createLotlTrustVerifier } from '../src/trust/lotlTrust.js';
import type { TrustSnapshot } from '../src/trust/matching.js';
import { SnapshotIndex } from '../src/trust/snapshotIndex.js';
import { verifyMsoMdocPresentation, type MdocPresentationContext, type MdocRequirements } from '../src/verification/formats/msoMdoc/msoMdoc.js';
import { newWalletKey, type WalletKey } from '../wallet/keys.js';
import { presentMdoc, readIssuerSigned } from '../wallet/mdoc.js';
import { startCrlServer } from './support/crlServer.js';
import { leftOf, rightOf } from './support/either.js';
import { loopbackEgress } from './support/egress.js';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DAY = 86_400_000;
const STATUS_URI = 'https://issuer.example/status/1';

let ca: CertifiedKey;
let signer: CertifiedKey;
let device: WalletKey;
let context: MdocPresentationContext;
let handover: OpenID4VPHandoverInfo;

test.before(async () => {
  ca = await createCertificateAuthority({ commonName: 'Test IACA' });
  signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', subjectAltNames: [{ type: 'url', value: 'https://issuer.example' }] });
  device = await newWalletKey();
  handover = {
    clientId: 'x509_hash:Hb3L6jB7lqDvJ3aB4hL1vZ6pG1x1j1C0y3Xo2Q5e9sM',
    nonce: 'n-0S6_WzA2Mj-mdoc',
    responseUri: 'https://verifier.example/oidc4vp/abc/response',
    jwkThumbprint: await jwkThumbprintBytes((await newWalletKey()).publicJwk),
  };
  context = { handover, now: new Date() };
});

const requirements: MdocRequirements = { doctypeValue: MDL, claimPaths: [[NS, 'family_name'], [NS, 'birth_date']] };

const presentation = async (options: { idx?: number; disclose?: [string, string][]; nonce?: string } = {}): Promise<string> => {
  const now = new Date();
  const issued = await buildIssuerSigned({
    docType: MDL,
    nameSpaces: new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann'], ['birth_date', fullDate('1964-08-12')], ['age_over_18', true]])]]),
    deviceKey: device.publicJwk,
    validFrom: new Date(now.getTime() - DAY),
    validUntil: new Date(now.getTime() + DAY),
    ...(options.idx === undefined ? {} : { status: { status_list: { idx: options.idx, uri: STATUS_URI } } }),
    signer: { signer: keySigner(signer.keys.privateKey), x5chain: [new Uint8Array(signer.certificate.rawData)] },
    now,
  });
  return presentMdoc(readIssuerSigned(Buffer.from(issued).toString('base64url')), {
    docType: MDL,
    disclose: options.disclose ?? [[NS, 'family_name'], [NS, 'birth_date'], [NS, 'age_over_18']],
    deviceKey: device.privateKey,
    handover: { ...handover, nonce: options.nonce ?? handover.nonce },
  });
};

const crl = createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 });
const noAnchoring: TrustVerifier = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl });

/** A status list client serving one list, signed (as the checker requires) by the document signer itself; `asked` gets the form asked for first. */
const statusChecker = (revoked: readonly number[], asked: unknown[] = []): CredentialStatusChecker => {
  const client: StatusListClient = {
    get: async (_uri, _now, preferred) => {
      asked.push(preferred);
      return right({
        chain: [signer.certificate],
        list: buildStatusList(1, 64, revoked.map((idx) => [idx, 1] as const)),
        exp: undefined,
        ttl: undefined,
        signer: { chain: [signer.certificate], trust: { supportTrustAnchor: false } },
        until: Date.now() + DAY,
      });
    },
  };
  return createCredentialStatusChecker({ client, policy: 'enforce' });
};

test('a presented mDL yields the credential object: requested elements only, issuer, validity, device key thumbprint', async (t) => {
  const verified = rightOf(await verifyMsoMdocPresentation(await presentation(), requirements, context, noAnchoring, statusChecker([])));
  const { credential, raw } = verified;
  t.is(credential.format, 'mso_mdoc');
  t.is(credential.doctype, MDL);
  t.deepEqual(credential.claims, { [NS]: { family_name: 'Mustermann', birth_date: '1964-08-12' } });
  t.is(credential.issuer, 'https://issuer.example');
  t.true(credential.signatureIsValid);
  t.false(credential.supportRevocation);
  t.false(credential.supportTrustAnchor);
  t.true(credential.kbSignatureIsValid);
  t.is(credential.kbKeyId, await calculateJwkThumbprint(device.publicJwk, 'sha256'));
  t.regex(credential.validFrom ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  t.deepEqual(verified.droppedElements, [`${NS}/age_over_18`]);
  t.deepEqual(JSON.parse(Buffer.from(raw.claims, 'base64').toString('utf8')), credential.claims);
  t.false(JSON.stringify(verified.credential).includes('age_over_18'));
  t.false(Buffer.from(raw.claims, 'base64').toString('utf8').includes('age_over_18'));
});

test('a requested element the DeviceResponse does not return is a failure', async (t) => {
  const failure = leftOf(await verifyMsoMdocPresentation(await presentation({ disclose: [[NS, 'family_name']] }), requirements, context, noAnchoring, statusChecker([])));
  t.is(failure.reason, `requested element ${NS}/birth_date is not returned`);
});

test('a device signature over another request\'s SessionTranscript is a failure', async (t) => {
  const failure = leftOf(await verifyMsoMdocPresentation(await presentation({ nonce: 'another-nonce' }), requirements, context, noAnchoring, statusChecker([])));
  t.is(failure.reason, "deviceSignature does not verify with the MSO device key over this request's SessionTranscript");
});

test('the document signer chain is judged as an SD-JWT VC issuer\'s: untrusted under enforce fails, under evaluate is delivered untrusted', async (t) => {
  const elsewhere = await createCertificateAuthority({ commonName: 'Another IACA' });
  const enforce = createTrustVerifier({ verifyTrustAnchor: true, anchors: [elsewhere.certificate], crl, policy: 'enforce' });
  const failure = leftOf(await verifyMsoMdocPresentation(await presentation(), requirements, context, enforce, statusChecker([])));
  t.deepEqual(failure, { reason: 'issuer chain does not resolve to a configured trust anchor', trustEnforcement: true });
  const evaluate = createTrustVerifier({ verifyTrustAnchor: true, anchors: [elsewhere.certificate], crl, policy: 'evaluate' });
  const { credential } = rightOf(await verifyMsoMdocPresentation(await presentation(), requirements, context, evaluate, statusChecker([])));
  t.like(credential, { supportTrustAnchor: true, isTrusted: false });
  const anchored = createTrustVerifier({ verifyTrustAnchor: true, anchors: [ca.certificate], crl, policy: 'enforce' });
  t.like(rightOf(await verifyMsoMdocPresentation(await presentation(), requirements, context, anchored, statusChecker([]))).credential, { isTrusted: true, isCertificateRevoked: false });
});

test('trusted_authorities (aki) the document signer chain does not meet is a failure', async (t) => {
  const failure = leftOf(await verifyMsoMdocPresentation(await presentation(), { ...requirements, trustedAuthorityKeyIds: ['AAAA'] }, context, noAnchoring, statusChecker([])));
  t.is(failure.reason, "issuer chain has none of the AuthorityKeyIdentifiers in the query's trusted_authorities");
});

test('the MSO status list reference is checked: VALID passes with supportRevocation, revoked fails; the CWT form is asked for first', async (t) => {
  const asked: unknown[] = [];
  const valid = rightOf(await verifyMsoMdocPresentation(await presentation({ idx: 7 }), requirements, context, noAnchoring, statusChecker([3], asked)));
  t.true(valid.credential.supportRevocation);
  t.deepEqual(asked, ['cwt']);
  const revoked = leftOf(await verifyMsoMdocPresentation(await presentation({ idx: 3 }), requirements, context, noAnchoring, statusChecker([3])));
  t.is(revoked.reason, 'credential is revoked: its status list says INVALID');
});

test('lotl mode: an mdoc whose docType is a PID (X509_PID_DOCTYPE_VALUES) is judged under the PID category', async (t) => {
  // No trusted list vouches for this signer: the PID policy (enforce) refuses it, the default (evaluate) delivers it untrusted.
  const emptyLists: TrustSnapshot = { index: new SnapshotIndex([]), missing: [], freshness: () => ({ usable: true }) as never, lineage: () => [] };
  const lotl = createLotlTrustVerifier({
    lists: { snapshot: () => emptyLists },
    staticAnchors: undefined,
    crl,
    policies: { default: 'evaluate', PID: 'enforce', QEAA: 'evaluate', PUB_EAA: 'evaluate', NON_QUALIFIED_EAA: 'evaluate' },
    pidVcts: new Set(),
    pidDoctypes: new Set([MDL]),
  });
  const asPid = leftOf(await verifyMsoMdocPresentation(await presentation(), requirements, context, lotl, statusChecker([])));
  t.true(asPid.trustEnforcement);
  const notPid = createLotlTrustVerifier({
    lists: { snapshot: () => emptyLists },
    staticAnchors: undefined,
    crl,
    policies: { default: 'evaluate', PID: 'enforce', QEAA: 'evaluate', PUB_EAA: 'evaluate', NON_QUALIFIED_EAA: 'evaluate' },
    pidVcts: new Set(),
    pidDoctypes: new Set(['eu.europa.ec.eudi.pid.1']),
  });
  t.like(rightOf(await verifyMsoMdocPresentation(await presentation(), requirements, context, notPid, statusChecker([]))).credential, { isTrusted: false });
});

test('a revoked document signer certificate (CRL on loopback): isCertificateRevoked under evaluate, VERIFICATION_FAILED under enforce', async (t) => {
  const server = await startCrlServer();
  t.teardown(() => server.close());
  const root = await createCertificateAuthority({ commonName: 'Revoking IACA' });
  const revokedSigner = await createLeafCertificate(root, { commonName: 'Revoked Document Signer', crlDistributionPoint: server.url('/iaca.crl') });
  server.serve('/iaca.crl', { status: 200, body: new Uint8Array((await createCrl(root, { revokedSerialNumbers: [revokedSigner.certificate.serialNumber] })).rawData) });
  const now = new Date();
  const issued = await buildIssuerSigned({
    docType: MDL,
    nameSpaces: new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann'], ['birth_date', fullDate('1964-08-12')]])]]),
    deviceKey: device.publicJwk,
    validFrom: new Date(now.getTime() - DAY),
    validUntil: new Date(now.getTime() + DAY),
    signer: { signer: keySigner(revokedSigner.keys.privateKey), x5chain: [new Uint8Array(revokedSigner.certificate.rawData)] },
    now,
  });
  const vp = presentMdoc(readIssuerSigned(Buffer.from(issued).toString('base64url')), { docType: MDL, disclose: [[NS, 'family_name'], [NS, 'birth_date']], deviceKey: device.privateKey, handover });
  const evaluate = createTrustVerifier({ verifyTrustAnchor: true, anchors: [root.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 5000 }) });
  t.like(rightOf(await verifyMsoMdocPresentation(vp, requirements, context, evaluate, statusChecker([]))).credential, { isTrusted: true, isCertificateRevoked: true });
  const enforce = createTrustVerifier({ verifyTrustAnchor: true, anchors: [root.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 5000 }), policy: 'enforce' });
  const failure = leftOf(await verifyMsoMdocPresentation(vp, requirements, context, enforce, statusChecker([])));
  t.true(failure.trustEnforcement);
  t.regex(failure.reason, /^certificate 1 \(CN=Revoked Document Signer\) is revoked since /);
});
