// The checks on one presented SD-JWT VC: issuer signature and chain, disclosures, vct, validity,
// requested claims, key binding and transaction data. Credentials come from the test issuer
// (test/support/credentials.ts) and, as a cross-check, from the independent @sd-jwt library.
import test from 'ava';
import { isRight, type Either } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createCertificateAuthority, createCrl, generateP256KeyPair, x5cOf } from '../src/crypto/certificates.js';
import { x509 } from '../src/crypto/x509.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createCredentialStatusChecker } from '../src/verification/status/statusCheck.js';
import { createStatusListClient } from '../src/verification/status/statusListClient.js';
import { createTrustVerifier, type TrustVerifier } from '../src/trust/issuerTrust.js';
import { verifySdJwtVcPresentation, type CredentialRequirements, type PresentationContext } from '../src/verification/formats/sdJwtVc/sdJwtVc.js';
import type { VerificationFailure, VerifiedCredential } from '../src/verification/verifiedCredential.js';
import {
  createHolder,
  createTestIssuer,
  disclosureDigest,
  encodeTransactionData,
  forgedDisclosure,
  sd,
  type Holder,
  type IssuedCredential,
  type TestIssuer,
} from './support/credentials.js';
import { present, transactionDataHash } from '../wallet/sdJwt.js';
import { startCrlServer } from './support/crlServer.js';
import { leftOf, rightOf } from './support/either.js';
import { loopbackEgress } from './support/egress.js';

const VCT = 'urn:eudi:pid:1';
const CLIENT_ID = 'x509_hash:Hb3L6jB7lqDvJ3aB4hL1vZ6pG1x1j1C0y3Xo2Q5e9sM';
const NONCE = 'n-0S6_WzA2Mj';
const YEAR = 365 * 86_400_000;

const requirements: CredentialRequirements = {
  vctValues: [VCT],
  claimPaths: [['given_name'], ['address', 'street']],
  requireHolderBinding: true,
};

const context = (overrides: Partial<PresentationContext> = {}): PresentationContext => ({
  audience: CLIENT_ID,
  nonce: NONCE,
  now: new Date(),
  transactionData: [],
  credentialId: 'pid',
  ...overrides,
});

const noAnchoring: TrustVerifier = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 }) });
// The credentials here carry no status reference, so this checker is never asked for a list.
const statusChecker = createCredentialStatusChecker({
  policy: 'enforce',
  client: createStatusListClient({ fetch: { egress: loopbackEgress, timeoutMs: 1000, maxBytes: 1 << 20 }, trust: noAnchoring, cacheMaxSeconds: 60, cacheMaxBytes: 1 << 20 }),
});


let issuer: TestIssuer;
let holder: Holder;
let pid: IssuedCredential;

test.before(async () => {
  issuer = await createTestIssuer();
  holder = await createHolder();
  pid = await issuer.issue({
    vct: VCT,
    holder,
    claims: {
      given_name: sd('Erika'),
      family_name: sd('Mustermann'),
      birthdate: sd('1964-08-12'),
      address: sd({ street: sd('Heidestrasse 17'), locality: sd('Koeln'), country: 'DE' }),
      nationalities: [sd('DE'), sd('FR')],
    },
  });
});

const requested = ['given_name', 'address', 'address.street'];

const presentPid = (overrides: Partial<Parameters<typeof present>[1]['keyBinding'] & object> = {}, disclose = requested): Promise<string> =>
  present(pid, { disclose, keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE, ...overrides } });

const verify = (
  presentation: string,
  reqs: CredentialRequirements = requirements,
  ctx: PresentationContext = context(),
  trust: TrustVerifier = noAnchoring,
): Promise<Either<VerificationFailure, VerifiedCredential>> => verifySdJwtVcPresentation(presentation, reqs, ctx, trust, statusChecker);

const reasonOf = async (presentation: string, reqs?: CredentialRequirements, ctx?: PresentationContext, trust?: TrustVerifier): Promise<string> =>
  leftOf(await verify(presentation, reqs, ctx, trust)).reason;

// --- happy paths

test('a valid presentation yields the credential object and the raw credential object', async (t) => {
  const { credential, raw } = rightOf(await verify(await presentPid()));
  // The array itself is signed in the clear; its undisclosed elements are left out.
  const expectedClaims = { vct: VCT, given_name: 'Erika', address: { country: 'DE', street: 'Heidestrasse 17' }, nationalities: [] };
  t.deepEqual(credential.claims, expectedClaims);
  t.is(credential.issuer, 'https://issuer.example');
  t.true(credential.signatureIsValid);
  t.false(credential.supportRevocation);
  t.false(credential.supportTrustAnchor);
  t.false('isTrusted' in credential);
  t.true(credential.kbSignatureIsValid);
  t.is(credential.kbKeyId, await calculateJwkThumbprint(holder.publicJwk, 'sha256'));
  t.false('transactionDataHashes' in credential);
  t.regex(credential.validFrom ?? '', /^\d{4}-\d{2}-\d{2}T/);
  t.regex(credential.validUntil ?? '', /^\d{4}-\d{2}-\d{2}T/);
  t.deepEqual(JSON.parse(Buffer.from(raw.claims, 'base64').toString('utf8')), expectedClaims);
  t.deepEqual(
    { ...raw, claims: undefined },
    { claims: undefined, issuer: credential.issuer, validFrom: credential.validFrom, validUntil: credential.validUntil, kbKeyId: credential.kbKeyId },
  );
});

test('array elements and whole objects can be requested; null selects any element', async (t) => {
  const vp = await present(pid, { disclose: ['nationalities[1]'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  const { credential } = rightOf(await verify(vp, { ...requirements, claimPaths: [['nationalities', null]] }));
  t.deepEqual(credential.claims['nationalities'], ['FR']);
  const whole = await present(pid, { disclose: ['address', 'address.street', 'address.locality'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  t.deepEqual(rightOf(await verify(whole, { ...requirements, claimPaths: [['address']] })).credential.claims['address'], {
    country: 'DE',
    street: 'Heidestrasse 17',
    locality: 'Koeln',
  });
});

test('without holder binding there is no KB-JWT and no kbKeyId or kbSignatureIsValid', async (t) => {
  const vp = await present(pid, { disclose: requested });
  t.true(vp.endsWith('~'));
  const { credential, raw } = rightOf(await verify(vp, { ...requirements, requireHolderBinding: false }));
  t.false('kbKeyId' in credential);
  t.false('kbSignatureIsValid' in credential);
  t.false('kbKeyId' in raw);
});

test('transaction data naming the credential is bound by its hash in the KB-JWT', async (t) => {
  const payment = encodeTransactionData({ type: 'payment', credential_ids: ['pid'], amount: '42.00' });
  const other = encodeTransactionData({ type: 'payment', credential_ids: ['mdl'] });
  const ctx = context({ transactionData: [{ encoded: payment, credentialIds: ['pid'] }, { encoded: other, credentialIds: ['mdl'] }] });
  const vp = await presentPid({ transactionData: [payment] });
  const { credential, raw } = rightOf(await verify(vp, requirements, ctx));
  t.deepEqual(credential.transactionDataHashes, [transactionDataHash(payment)]);
  t.deepEqual(raw.transactionDataHashes, [transactionDataHash(payment)]);
});

test('a chain through an intermediate anchored in the trust anchors reports isTrusted', async (t) => {
  const server = await startCrlServer();
  t.teardown(() => server.close());
  const chained = await createTestIssuer({
    intermediate: true,
    intermediateCa: { crlDistributionPoint: server.url('/root.crl') },
    crlUrl: server.url('/intermediate.crl'),
  });
  server.serve('/root.crl', { status: 200, body: new Uint8Array((await createCrl(chained.ca)).rawData) });
  server.serve('/intermediate.crl', { status: 200, body: new Uint8Array((await createCrl(chained.intermediate!)).rawData) });
  const trust = createTrustVerifier({ verifyTrustAnchor: true, anchors: [chained.ca.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 5000 }) });
  const vp = await present(await chained.issue({ vct: VCT, holder, claims: { given_name: sd('Erika') } }), {
    disclose: ['given_name'],
    keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE },
  });
  const { credential } = rightOf(await verify(vp, { ...requirements, claimPaths: [['given_name']] }, context(), trust));
  t.like(credential, { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: false });
  t.is(server.hits('/root.crl'), 1);
  t.is(server.hits('/intermediate.crl'), 1);
});

test('a revoked issuer certificate (CRL on loopback) is reported as isCertificateRevoked', async (t) => {
  const server = await startCrlServer();
  t.teardown(() => server.close());
  const revokedIssuer = await createTestIssuer({ crlUrl: server.url('/root.crl') });
  server.serve('/root.crl', { status: 200, body: new Uint8Array((await createCrl(revokedIssuer.ca, { revokedSerialNumbers: [revokedIssuer.leaf.certificate.serialNumber] })).rawData) });
  const trust = createTrustVerifier({ verifyTrustAnchor: true, anchors: [revokedIssuer.ca.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 5000 }) });
  const vp = await present(await revokedIssuer.issue({ vct: VCT, holder, claims: { given_name: sd('Erika') } }), {
    disclose: ['given_name'],
    keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE },
  });
  const reqs = { ...requirements, claimPaths: [['given_name']] };
  t.like(rightOf(await verify(vp, reqs, context(), trust)).credential, { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: true });
  const enforce = createTrustVerifier({ verifyTrustAnchor: true, anchors: [revokedIssuer.ca.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 5000 }), policy: 'enforce' });
  const failure = leftOf(await verify(vp, reqs, context(), enforce));
  t.true(failure.trustEnforcement);
  t.regex(failure.reason, /^certificate 1 \(CN=Test Issuer\) is revoked since /);
});

test('a CRL fetch that times out fails the presentation closed', async (t) => {
  const server = await startCrlServer();
  t.teardown(() => server.close());
  const slow = await createTestIssuer({ crlUrl: server.url('/slow.crl') });
  server.serve('/slow.crl', 'hang');
  const trust = createTrustVerifier({ verifyTrustAnchor: true, anchors: [slow.ca.certificate], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 150 }) });
  const vp = await present(await slow.issue({ vct: VCT, holder, claims: { given_name: sd('Erika') } }), {
    disclose: ['given_name'],
    keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE },
  });
  const failure = leftOf(await verify(vp, { ...requirements, claimPaths: [['given_name']] }, context(), trust));
  t.deepEqual(failure, { reason: `revocation status of certificate 1 (CN=Test Issuer) unknown: CRL ${server.url('/slow.crl')} timed out after 150 ms`, trustEnforcement: true });
});

// --- issuer signature and chain

test('a bad issuer signature fails', async (t) => {
  const forger = await generateP256KeyPair();
  const forged = await issuer.issue({ vct: VCT, holder, claims: { given_name: sd('Erika') }, signingKey: forger.privateKey });
  const vp = await present(forged, { disclose: ['given_name'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  t.is(await reasonOf(vp, { ...requirements, claimPaths: [['given_name']] }), 'issuer signature does not verify with the x5c leaf certificate key');
});

test('an issuer JWT with another typ fails; the media type form of dc+sd-jwt is accepted', async (t) => {
  const reqs = { ...requirements, claimPaths: [], requireHolderBinding: false };
  const old = await issuer.issue({ vct: VCT, holder, claims: {}, typ: 'vc+sd-jwt' });
  t.is(await reasonOf(await present(old, { disclose: [] }), reqs), 'issuer-signed JWT typ is "vc+sd-jwt", expected "dc+sd-jwt"');
  const mediaType = await issuer.issue({ vct: VCT, holder, claims: {}, typ: 'application/DC+SD-JWT' });
  t.true(isRight(await verify(await present(mediaType, { disclose: [] }), reqs)));
});

test('a broken chain fails', async (t) => {
  const stranger = await createCertificateAuthority({ commonName: 'Stranger CA' });
  const broken = await issuer.issue({ vct: VCT, holder, claims: {}, x5c: [...issuer.x5c, ...x5cOf([stranger.certificate])] });
  t.is(
    await reasonOf(await present(broken, { disclose: [] }), { ...requirements, claimPaths: [], requireHolderBinding: false }),
    'invalid X.509 chain: certificate 1 (CN=Test Issuer) is not signed by certificate 2 (CN=Stranger CA): broken chain',
  );
});

test('a CA without keyCertSign in the chain fails', async (t) => {
  const weak = await createTestIssuer({ intermediate: true, intermediateCa: { keyUsage: x509.KeyUsageFlags.cRLSign } });
  const credential = await weak.issue({ vct: VCT, holder, claims: {} });
  const failure = leftOf(await verify(await present(credential, { disclose: [] }), { ...requirements, claimPaths: [], requireHolderBinding: false }));
  t.deepEqual(failure, { reason: 'invalid X.509 chain: certificate 2 (CN=Test Issuer Intermediate CA) Key Usage lacks keyCertSign', trustEnforcement: false });
});

test('an expired issuer certificate fails', async (t) => {
  const stale = await createTestIssuer({ leaf: { notBefore: new Date(Date.now() - 2 * YEAR), notAfter: new Date(Date.now() - YEAR) } });
  const credential = await stale.issue({ vct: VCT, claims: {} });
  t.regex(await reasonOf(await present(credential, { disclose: [] }), { ...requirements, claimPaths: [], requireHolderBinding: false }), /^invalid X\.509 chain: certificate 1 \(CN=Test Issuer\) expired at /);
});

// --- credential contents

test('an expired or not yet valid credential fails', async (t) => {
  const reqs = { ...requirements, claimPaths: [], requireHolderBinding: false };
  const expired = await issuer.issue({ vct: VCT, claims: {}, exp: new Date(Date.now() - 60_000) });
  t.regex(await reasonOf(await present(expired, { disclose: [] }), reqs), /^credential expired at /);
  const early = await issuer.issue({ vct: VCT, claims: {}, nbf: new Date(Date.now() + 3_600_000) });
  t.regex(await reasonOf(await present(early, { disclose: [] }), reqs), /^credential is not valid before /);
});

test('a vct outside meta.vct_values fails', async (t) => {
  t.is(await reasonOf(await presentPid(), { ...requirements, vctValues: ['urn:eudi:mdl:1'] }), `vct ${VCT} is not among the requested vct_values`);
});

test('a missing requested claim fails', async (t) => {
  t.is(await reasonOf(await presentPid({}, ['given_name'])), 'requested claim address.street is not disclosed');
  t.is(await reasonOf(await presentPid({}, ['given_name', 'address'])), 'requested claim address.street is not disclosed');
});

test('a disclosure outside the query fails', async (t) => {
  t.is(await reasonOf(await presentPid({}, [...requested, 'birthdate'])), 'claim birthdate is disclosed but was not requested');
  t.is(await reasonOf(await presentPid({}, [...requested, 'address.locality'])), 'claim address.locality is disclosed but was not requested');
});

test('a disclosure the issuer never signed, a repeated one, or an orphan one fails', async (t) => {
  const forged = await present(pid, { disclose: requested, extraDisclosures: [forgedDisclosure('given_name', 'Mallory')], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  t.is(await reasonOf(forged), 'disclosure 4 is not referenced by the credential');
  const twice = await present(pid, { disclose: [...requested, 'given_name'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  t.is(await reasonOf(twice), 'the same disclosure is presented twice');
  // address.street without address: its digest sits inside a value that was not disclosed.
  const orphan = await present(pid, { disclose: ['given_name', 'address.street'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  t.is(await reasonOf(orphan), 'disclosure 2 is not referenced by the credential');
  const reserved = await present(pid, { disclose: requested, extraDisclosures: [forgedDisclosure('exp', 4102444800)], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  t.is(await reasonOf(reserved), 'claim exp must not be selectively disclosed');
});

test('a claim named __proto__ stays a claim', async (t) => {
  const odd = await issuer.issue({ vct: VCT, holder, claims: { ['__proto__']: sd({ polluted: true }), given_name: sd('Erika') } });
  const vp = await present(odd, { disclose: ['__proto__', 'given_name'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  const { credential } = rightOf(await verify(vp, { ...requirements, claimPaths: [['__proto__'], ['given_name']] }));
  t.true(Object.hasOwn(credential.claims, '__proto__'));
  t.is(Object.getPrototypeOf(credential.claims), Object.prototype);
});

test('a disclosure whose name is already signed in the clear fails', async (t) => {
  const shadow = forgedDisclosure('given_name', 'Mallory');
  // The issuer (here, a careless one) committed to a digest of a claim it also signed in the clear.
  const credential = await issuer.issue({ vct: VCT, holder, claims: { given_name: 'Erika', _sd: [disclosureDigest(shadow)] } });
  const vp = await present(credential, { disclose: [], extraDisclosures: [shadow], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  t.is(await reasonOf(vp, { ...requirements, claimPaths: [['given_name']] }), 'disclosed claim given_name already exists in the credential');
});

// --- key binding

test('key binding is required: a presentation without KB-JWT fails', async (t) => {
  t.is(await reasonOf(await present(pid, { disclose: requested })), 'key binding is required but the presentation has no KB-JWT');
});

test('a bad KB signature fails', async (t) => {
  const other = await createHolder();
  t.is(await reasonOf(await presentPid({ signingKey: other.keys.privateKey })), 'KB-JWT signature does not verify with cnf.jwk');
});

test('a wrong sd_hash fails', async (t) => {
  t.is(await reasonOf(await presentPid({ sdHash: 'dGhpcyBpcyBub3QgdGhlIGhhc2g' })), 'KB-JWT sd_hash does not match the presentation');
  // A KB-JWT over fewer disclosures, reused with more: its sd_hash no longer matches.
  const shorter = await presentPid({}, ['given_name']);
  const kb = shorter.slice(shorter.lastIndexOf('~') + 1);
  const longer = (await present(pid, { disclose: requested })) + kb;
  t.is(await reasonOf(longer), 'KB-JWT sd_hash does not match the presentation');
});

test('a wrong nonce fails', async (t) => {
  t.is(await reasonOf(await presentPid({ nonce: 'another-nonce' })), "KB-JWT nonce does not match the request's nonce");
});

test('a wrong aud fails, including the client_id without its prefix', async (t) => {
  t.is(await reasonOf(await presentPid({ aud: 'x509_hash:somebody-else' })), `KB-JWT aud is not ${CLIENT_ID}`);
  t.is(await reasonOf(await presentPid({ aud: CLIENT_ID.slice('x509_hash:'.length) })), `KB-JWT aud is not ${CLIENT_ID}`);
});

test('an iat a year old or in the future fails', async (t) => {
  t.regex(await reasonOf(await presentPid({ iat: new Date(Date.now() - YEAR) })), /^KB-JWT iat .* is more than 300 s in the past$/);
  t.regex(await reasonOf(await presentPid({ iat: new Date(Date.now() + 3_600_000) })), /^KB-JWT iat .* is in the future$/);
});

test('a KB-JWT with another typ fails', async (t) => {
  t.is(await reasonOf(await presentPid({ typ: 'JWT' })), 'KB-JWT typ is "JWT", expected "kb+jwt"');
});

test('a transaction data hash mismatch fails', async (t) => {
  const payment = encodeTransactionData({ type: 'payment', credential_ids: ['pid'], amount: '42.00' });
  const ctx = context({ transactionData: [{ encoded: payment, credentialIds: ['pid'] }] });
  // The hash of the decoded JSON, not of the exact base64url string sent.
  const wrong = transactionDataHash(Buffer.from(payment, 'base64url').toString('utf8'));
  t.is(await reasonOf(await presentPid({ transactionDataHashes: [wrong] }), requirements, ctx), 'KB-JWT transaction_data_hashes lacks the hash of transaction data item 1 for this credential');
  t.is(await reasonOf(await presentPid(), requirements, ctx), 'KB-JWT has no transaction_data_hashes although transaction data names this credential');
  const extra = await presentPid({ transactionDataHashes: [transactionDataHash(payment), wrong] });
  t.is(await reasonOf(extra, requirements, ctx), 'KB-JWT transaction_data_hashes holds hashes of no transaction data sent for this credential');
});

test('malformed presentations fail with a reason, never an exception', async (t) => {
  t.is(await reasonOf('not-an-sd-jwt'), 'presentation is not an SD-JWT (no ~ separator)');
  t.is(await reasonOf('~'), 'presentation has no issuer-signed JWT');
  t.is(await reasonOf('a.b.c~~'), 'presentation has an empty disclosure');
  t.is(await reasonOf('a.b.c~'), 'issuer-signed JWT is not a JWS');
  const vp = await presentPid();
  t.is(await reasonOf(vp.replace(/~[^~]+~/, '~%%%~')), 'disclosure 1 is not base64url');
  t.is(await reasonOf(vp.slice(0, vp.lastIndexOf('~') + 1) + 'garbage'), 'KB-JWT is not a JWS');
});

// --- cross-check with an independent implementation

test('the independent @sd-jwt library accepts the test issuer output, and we accept its output', async (t) => {
  const leafJwk = await exportJWK(issuer.leaf.keys.publicKey);
  const leafPrivate = await exportJWK(issuer.leaf.keys.privateKey);
  const holderPrivate = await exportJWK(holder.keys.privateKey);
  const library = new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: generateSalt,
    signer: await ES256.getSigner(leafPrivate),
    signAlg: 'ES256',
    verifier: await ES256.getVerifier(leafJwk),
    kbSigner: await ES256.getSigner(holderPrivate),
    kbSignAlg: 'ES256',
    kbVerifier: await ES256.getVerifier(holder.publicJwk),
  });
  const ours = await presentPid();
  const checked = await library.verify(ours, { keyBindingNonce: NONCE });
  t.is(checked.kb?.payload.aud, CLIENT_ID);

  const theirs = await library.issue(
    { iss: 'https://other.example', vct: VCT, cnf: { jwk: holder.publicJwk }, given_name: 'Erika', address: { street: 'Heidestrasse 17', country: 'DE' } },
    { _sd: ['given_name', 'address'], address: { _sd: ['street'] } },
    { header: { typ: 'dc+sd-jwt', x5c: [...issuer.x5c] } },
  );
  const presented = await library.present(
    theirs,
    { given_name: true, address: { street: true } },
    { kb: { payload: { aud: CLIENT_ID, nonce: NONCE, iat: Math.floor(Date.now() / 1000) } } },
  );
  const { credential } = rightOf(await verify(presented));
  t.deepEqual(credential.claims, { vct: VCT, given_name: 'Erika', address: { country: 'DE', street: 'Heidestrasse 17' } });
  t.is(credential.issuer, 'https://other.example');
});
