// X.509 chain validation, static trust anchors, CRL revocation (served on loopback by the test),
// and the signing identities of src/crypto/certificates.ts.
import { signCompactJws } from '../src/crypto/jws.js';
import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { jwtVerify, importX509 } from 'jose';
import { certificatesFromPem, certificatesToPem, createCertificateAuthority, createCrl, createLeafCertificate, privateKeyToPem, x509HashClientId, x5cOf, type CertifiedKey } from '../src/crypto/certificates.js';
import { loadSigningIdentity } from '../src/crypto/signingIdentity.js';
import { x509 } from '../src/crypto/x509.js';
import { loadConfig } from '../src/config/config.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier, type TrustPolicy, type TrustVerifier } from '../src/trust/issuerTrust.js';
import { findTrustAnchor, parseX5c, validateChain } from '../src/trust/x509Chain.js';
import { startCrlServer, type CrlServer } from './support/crlServer.js';
import { generateCertificateFiles } from '../ops/certificates.js';
import { leftOf, rightOf } from './support/either.js';
import { loopbackEgress } from './support/egress.js';

const DAY = 86_400_000;
const now = new Date();


const rootCa = (options: Partial<Parameters<typeof createCertificateAuthority>[0]> = {}): Promise<CertifiedKey> =>
  createCertificateAuthority({ commonName: 'Root', ...options });

// --- chain validation

test('a root-signed leaf and a chain through an intermediate are valid', async (t) => {
  const root = await rootCa();
  const intermediate = await createCertificateAuthority({ commonName: 'Intermediate' }, root);
  const direct = await createLeafCertificate(root, { commonName: 'Leaf' });
  const indirect = await createLeafCertificate(intermediate, { commonName: 'Leaf 2' });
  t.true(isRight(await validateChain([direct.certificate], now)));
  t.true(isRight(await validateChain([indirect.certificate, intermediate.certificate], now)));
  t.true(isRight(await validateChain([indirect.certificate, intermediate.certificate, root.certificate], now)));
});

test('an expired or not yet valid certificate fails with its position and subject', async (t) => {
  const root = await rootCa();
  const expired = await createLeafCertificate(root, { commonName: 'Old', notBefore: new Date(now.getTime() - 10 * DAY), notAfter: new Date(now.getTime() - DAY) });
  t.regex(leftOf(await validateChain([expired.certificate], now)), /^certificate 1 \(CN=Old\) expired at /);
  const future = await createLeafCertificate(root, { commonName: 'Future', notBefore: new Date(now.getTime() + DAY) });
  t.regex(leftOf(await validateChain([future.certificate], now)), /^certificate 1 \(CN=Future\) is not valid before /);
  const expiredCa = await createCertificateAuthority({ commonName: 'Old CA', notBefore: new Date(now.getTime() - 10 * DAY), notAfter: new Date(now.getTime() - DAY) }, root);
  const leaf = await createLeafCertificate(expiredCa, { commonName: 'Leaf' });
  t.regex(leftOf(await validateChain([leaf.certificate, expiredCa.certificate], now)), /^certificate 2 \(CN=Old CA\) expired at /);
});

test('a chain that validated once is still judged at each now: refused before its start and after its earliest expiry', async (t) => {
  const root = await rootCa();
  const ca = await createCertificateAuthority({ commonName: 'Short CA', notBefore: new Date(now.getTime() - DAY), notAfter: new Date(now.getTime() + DAY) }, root);
  const leaf = await createLeafCertificate(ca, { commonName: 'Long Leaf', notBefore: new Date(now.getTime() - DAY), notAfter: new Date(now.getTime() + 10 * DAY) });
  const chain = [leaf.certificate, ca.certificate];
  t.true(isRight(await validateChain(chain, now)));
  t.regex(leftOf(await validateChain(chain, new Date(now.getTime() + 2 * DAY))), /^certificate 2 \(CN=Short CA\) expired at /);
  t.regex(leftOf(await validateChain(chain, new Date(now.getTime() - 2 * DAY))), /^certificate 1 \(CN=Long Leaf\) is not valid before /);
  t.true(isRight(await validateChain(chain, now)));
});

test('a chain that failed is refused again, however often it is presented', async (t) => {
  const root = await rootCa();
  const leaf = await createLeafCertificate(root, { commonName: 'Leaf' });
  const impostor = await createCertificateAuthority({ commonName: 'Root' });
  for (let i = 0; i < 3; i++) t.regex(leftOf(await validateChain([leaf.certificate, impostor.certificate], now)), /broken chain/);
});

test('a broken chain (leaf not signed by the next certificate) fails', async (t) => {
  const root = await rootCa();
  const other = await createCertificateAuthority({ commonName: 'Other CA' }, root);
  const intermediate = await createCertificateAuthority({ commonName: 'Intermediate' }, root);
  const leaf = await createLeafCertificate(intermediate, { commonName: 'Leaf' });
  t.is(
    leftOf(await validateChain([leaf.certificate, other.certificate], now)),
    'certificate 1 (CN=Leaf) is not signed by certificate 2 (CN=Other CA): broken chain',
  );
  // Same subject name, different key: the name matches, the signature does not.
  const impostor = await createCertificateAuthority({ commonName: 'Intermediate' }, root);
  t.regex(leftOf(await validateChain([leaf.certificate, impostor.certificate], now)), /broken chain/);
});

test('a CA without keyCertSign, or without cA, cannot issue', async (t) => {
  const root = await rootCa();
  const noCertSign = await createCertificateAuthority({ commonName: 'No CertSign', keyUsage: x509.KeyUsageFlags.cRLSign }, root);
  const leaf = await createLeafCertificate(noCertSign, { commonName: 'Leaf' });
  t.is(leftOf(await validateChain([leaf.certificate, noCertSign.certificate], now)), 'certificate 2 (CN=No CertSign) Key Usage lacks keyCertSign');
  const notCa = await createCertificateAuthority({ commonName: 'Not CA', basicConstraints: { ca: false } }, root);
  const leaf2 = await createLeafCertificate(notCa, { commonName: 'Leaf' });
  t.regex(leftOf(await validateChain([leaf2.certificate, notCa.certificate], now)), /^certificate 2 \(CN=Not CA\) issues certificate 1 but is not a CA/);
  const noConstraints = await createCertificateAuthority({ commonName: 'No BC', basicConstraints: null }, root);
  const leaf3 = await createLeafCertificate(noConstraints, { commonName: 'Leaf' });
  t.regex(leftOf(await validateChain([leaf3.certificate, noConstraints.certificate], now)), /is not a CA/);
});

test('the leaf must be a non-CA certificate with digitalSignature', async (t) => {
  const root = await rootCa();
  const caLeaf = await createLeafCertificate(root, { commonName: 'CA Leaf', basicConstraints: { ca: true } });
  t.is(leftOf(await validateChain([caLeaf.certificate], now)), 'certificate 1 (CN=CA Leaf) is a CA certificate, not a signing certificate');
  const noSign = await createLeafCertificate(root, { commonName: 'Encipher', keyUsage: x509.KeyUsageFlags.keyEncipherment });
  t.is(leftOf(await validateChain([noSign.certificate], now)), 'certificate 1 (CN=Encipher) Key Usage lacks digitalSignature');
});

test('a path length constraint is enforced', async (t) => {
  const root = await rootCa();
  const upper = await createCertificateAuthority({ commonName: 'Upper', pathLength: 0 }, root);
  const lower = await createCertificateAuthority({ commonName: 'Lower' }, upper);
  const leaf = await createLeafCertificate(lower, { commonName: 'Leaf' });
  t.regex(leftOf(await validateChain([leaf.certificate, lower.certificate, upper.certificate], now)), /^certificate 3 \(CN=Upper\) path length constraint 0 exceeded/);
});

test('anchoring: the last certificate is an anchor or issued by one valid now', async (t) => {
  const root = await rootCa();
  const stranger = await rootCa({ commonName: 'Stranger' });
  const leaf = await createLeafCertificate(root, { commonName: 'Leaf' });
  t.is(await findTrustAnchor([leaf.certificate], [stranger.certificate, root.certificate], now), root.certificate);
  t.is(await findTrustAnchor([leaf.certificate, root.certificate], [root.certificate], now), root.certificate);
  t.is(await findTrustAnchor([leaf.certificate], [stranger.certificate], now), undefined);
  const expiredRoot = await rootCa({ notBefore: new Date(now.getTime() - 10 * DAY), notAfter: new Date(now.getTime() - DAY) });
  const late = await createLeafCertificate(expiredRoot, { commonName: 'Leaf' });
  t.is(await findTrustAnchor([late.certificate], [expiredRoot.certificate], now), undefined);
});

// --- trust verification with CRLs

interface Pki {
  readonly root: CertifiedKey;
  readonly intermediate: CertifiedKey;
  readonly leaf: CertifiedKey;
  readonly chain: readonly x509.X509Certificate[];
}

const pkiWithCrls = async (server: CrlServer, prefix: string): Promise<Pki> => {
  const root = await rootCa();
  const intermediate = await createCertificateAuthority({ commonName: 'Intermediate', crlDistributionPoint: server.url(`/${prefix}/root.crl`) }, root);
  const leaf = await createLeafCertificate(intermediate, { commonName: 'Leaf', crlDistributionPoint: server.url(`/${prefix}/intermediate.crl`) });
  return { root, intermediate, leaf, chain: [leaf.certificate, intermediate.certificate] };
};

const serveCrl = async (server: CrlServer, path: string, issuer: CertifiedKey, options: Parameters<typeof createCrl>[1] = {}): Promise<void> => {
  server.serve(path, { status: 200, body: new Uint8Array((await createCrl(issuer, options)).rawData) });
};

const verifier = (pki: Pki, options: { policy?: TrustPolicy; timeoutMs?: number; maxBytes?: number } = {}): TrustVerifier =>
  createTrustVerifier({
    verifyTrustAnchor: true,
    anchors: [pki.root.certificate],
    crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: options.timeoutMs ?? 5000, ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}) }),
    ...(options.policy ? { policy: options.policy } : {}),
  });

let server: CrlServer;
test.before(async () => {
  server = await startCrlServer();
});
test.after.always(async () => {
  await server.close();
});

test('with anchoring off, a valid chain reports supportTrustAnchor false and fetches no CRL', async (t) => {
  const pki = await pkiWithCrls(server, 'off');
  const trust = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 }) });
  t.deepEqual(rightOf(await trust.verify(pki.chain, now)).trust, { supportTrustAnchor: false });
  t.is(server.hits('/off/intermediate.crl'), 0);
});

test('an anchored chain with current CRLs is trusted and not revoked; the CRL is cached until nextUpdate', async (t) => {
  const pki = await pkiWithCrls(server, 'good');
  await serveCrl(server, '/good/root.crl', pki.root);
  await serveCrl(server, '/good/intermediate.crl', pki.intermediate, { revokedSerialNumbers: ['0badc0de'] });
  const trust = verifier(pki);
  t.deepEqual(rightOf(await trust.verify(pki.chain, now)).trust, { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: false });
  t.deepEqual(rightOf(await trust.verify(pki.chain, now)).trust, { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: false });
  t.is(server.hits('/good/intermediate.crl'), 1);
  t.is(server.hits('/good/root.crl'), 1);
});

test('a revoked leaf is reported under evaluate and fails under enforce', async (t) => {
  const pki = await pkiWithCrls(server, 'revoked');
  await serveCrl(server, '/revoked/root.crl', pki.root);
  await serveCrl(server, '/revoked/intermediate.crl', pki.intermediate, { revokedSerialNumbers: [pki.leaf.certificate.serialNumber] });
  t.deepEqual(rightOf(await verifier(pki).verify(pki.chain, now)).trust, { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: true });
  const failure = leftOf(await verifier(pki, { policy: 'enforce' }).verify(pki.chain, now));
  t.true(failure.trustEnforcement);
  t.regex(failure.reason, /^certificate 1 \(CN=Leaf\) is revoked since .* \(CRL http:\/\/127\.0\.0\.1:\d+\/revoked\/intermediate\.crl\)$/);
});

test('a revoked intermediate (on the root CRL) is revoked too', async (t) => {
  const pki = await pkiWithCrls(server, 'revoked-ca');
  await serveCrl(server, '/revoked-ca/root.crl', pki.root, { revokedSerialNumbers: [pki.intermediate.certificate.serialNumber] });
  await serveCrl(server, '/revoked-ca/intermediate.crl', pki.intermediate);
  t.deepEqual(rightOf(await verifier(pki).verify(pki.chain, now)).trust, { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: true });
});

test('a CRL fetch that times out fails closed with the reason', async (t) => {
  const pki = await pkiWithCrls(server, 'hang');
  await serveCrl(server, '/hang/root.crl', pki.root);
  server.serve('/hang/intermediate.crl', 'hang');
  const failure = leftOf(await verifier(pki, { timeoutMs: 200 }).verify(pki.chain, now));
  t.true(failure.trustEnforcement);
  t.regex(failure.reason, /^revocation status of certificate 1 \(CN=Leaf\) unknown: CRL http:\/\/127\.0\.0\.1:\d+\/hang\/intermediate\.crl timed out after 200 ms$/);
});

test('a CRL that is missing, badly signed, from another issuer, stale or too large fails closed', async (t) => {
  const pki = await pkiWithCrls(server, 'bad');
  await serveCrl(server, '/bad/root.crl', pki.root);
  // One checker throughout: a rejected CRL must not stay cached.
  const trust = verifier(pki, { maxBytes: 4096 });

  t.regex(leftOf(await trust.verify(pki.chain, now)).reason, /intermediate\.crl answered HTTP 404$/);

  // Same issuer name, another key: the signature must not verify.
  const impostor = await createCertificateAuthority({ commonName: 'Intermediate' }, pki.root);
  await serveCrl(server, '/bad/intermediate.crl', impostor);
  t.regex(leftOf(await trust.verify(pki.chain, now)).reason, /signature does not verify with the issuer's key$/);

  const stranger = await createCertificateAuthority({ commonName: 'Stranger' }, pki.root);
  await serveCrl(server, '/bad/intermediate.crl', stranger);
  t.regex(leftOf(await trust.verify(pki.chain, now)).reason, /is issued by CN=Stranger, not CN=Intermediate$/);

  await serveCrl(server, '/bad/intermediate.crl', pki.intermediate, { thisUpdate: new Date(now.getTime() - 3 * DAY), nextUpdate: new Date(now.getTime() - DAY) });
  t.regex(leftOf(await trust.verify(pki.chain, now)).reason, /is past its nextUpdate$/);

  server.serve('/bad/intermediate.crl', { status: 200, body: new Uint8Array(8192) });
  t.regex(leftOf(await trust.verify(pki.chain, now)).reason, /response larger than 4096 bytes$/);

  server.serve('/bad/intermediate.crl', { status: 200, body: new TextEncoder().encode('not a crl') });
  t.regex(leftOf(await trust.verify(pki.chain, now)).reason, /is not a DER or PEM CRL$/);

  await serveCrl(server, '/bad/intermediate.crl', pki.intermediate);
  t.true(isRight(await trust.verify(pki.chain, now)));
});

test('an unanchored chain is untrusted under evaluate, fails under enforce, and fetches no CRL', async (t) => {
  const pki = await pkiWithCrls(server, 'stranger');
  const stranger = await rootCa({ commonName: 'Stranger' });
  const crl = createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 });
  const evaluate = createTrustVerifier({ verifyTrustAnchor: true, anchors: [stranger.certificate], crl });
  t.deepEqual(rightOf(await evaluate.verify(pki.chain, now)).trust, { supportTrustAnchor: true, isTrusted: false, isCertificateRevoked: false });
  const enforce = createTrustVerifier({ verifyTrustAnchor: true, anchors: [stranger.certificate], crl, policy: 'enforce' });
  t.deepEqual(leftOf(await enforce.verify(pki.chain, now)), { reason: 'issuer chain does not resolve to a configured trust anchor', trustEnforcement: true });
  t.is(server.hits('/stranger/intermediate.crl'), 0);
});

test('an invalid chain fails before anchoring, as a verification (not trust) failure', async (t) => {
  const pki = await pkiWithCrls(server, 'invalid');
  const other = await createCertificateAuthority({ commonName: 'Other' }, pki.root);
  const failure = leftOf(await verifier(pki).verify([pki.leaf.certificate, other.certificate], now));
  t.false(failure.trustEnforcement);
  t.regex(failure.reason, /^invalid X\.509 chain: certificate 1 \(CN=Leaf\) is not signed by certificate 2 \(CN=Other\)/);
  t.is(leftOf(parseX5c(['%%%'])), 'x5c entry 1 is not base64');
  t.is(leftOf(parseX5c([btoa('not DER')])), 'x5c entry 1 is not a DER X.509 certificate');
  t.is(leftOf(parseX5c([])), 'x5c header missing or empty');
});

// --- configuration and signing identities

test('X509_TRUST_ANCHORS accepts base64 DER certificates and names a bad entry', async (t) => {
  const root = await rootCa();
  const der = Buffer.from(root.certificate.rawData).toString('base64');
  const ok = rightOf(loadConfig({ X509_VERIFY_TRUST_ANCHOR: 'true', X509_TRUST_ANCHORS: ` ${der} , ${der}`, X509_CRL_TIMEOUT_SECONDS: '3' }));
  t.deepEqual([ok.x509VerifyTrustAnchor, ok.x509TrustAnchors.length, ok.x509CrlTimeoutSeconds], [true, 2, 3]);
  const bad = leftOf(loadConfig({ X509_TRUST_ANCHORS: `${der},AAAA`, X509_VERIFY_TRUST_ANCHOR: 'yes' }));
  t.true(bad.some((m) => m.startsWith('X509_TRUST_ANCHORS: entry 2 is not a base64 DER X.509 certificate')));
  t.true(bad.some((m) => m.startsWith('X509_VERIFY_TRUST_ANCHOR: expected true or false')));
});

const devSource = (dataDir: string) => ({
  name: 'access',
  certificateVariable: 'ACCESS_CERTIFICATE_FILE',
  keyVariable: 'ACCESS_KEY_FILE',
  certificateFile: undefined,
  keyFile: undefined,
  dataDir,
  commonName: 'connector.example',
  subjectAltNames: [{ type: 'dns' as const, value: 'connector.example' }],
});

test('a development identity is generated once, kept with mode 0600, and signs ES256 JWTs', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'identity-'));
  const [a, b] = await Promise.all([loadSigningIdentity(devSource(dataDir)), loadSigningIdentity(devSource(dataDir))]);
  const again = await loadSigningIdentity(devSource(dataDir));
  t.deepEqual(a.x5c, b.x5c);
  t.deepEqual(a.x5c, again.x5c);
  t.is(a.x5c.length, 1);
  t.deepEqual((await readdir(dataDir)).sort(), ['access-identity']);
  for (const file of ['certificate.pem', 'key.pem', 'ca.pem']) t.is((await stat(join(dataDir, 'access-identity', file))).mode & 0o777, 0o600);
  const leaf = a.chain[0]!;
  t.true(leaf.getExtension(x509.SubjectAlternativeNameExtension)?.names.items.some((n) => n.type === 'dns' && n.value === 'connector.example'));
  const jwt = await signCompactJws(a.signer, { x5c: [...a.x5c] }, { ok: true });
  t.true((await jwtVerify(jwt, await importX509(leaf.toString('pem'), 'ES256'))).payload['ok'] as boolean);
  t.regex(x509HashClientId(leaf), /^x509_hash:[A-Za-z0-9_-]{43}$/);
  // The CA of the development chain validates the leaf.
  const [ca] = certificatesFromPem(await readFile(join(dataDir, 'access-identity', 'ca.pem'), 'utf8'));
  t.is(await findTrustAnchor(a.chain, [ca!], now), ca);
});

test('configured identity files: both or neither, the key must match, a trailing root is left out of x5c', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'identity-files-'));
  const root = await rootCa();
  const leaf = await createLeafCertificate(root, { commonName: 'Configured' });
  const other = await createLeafCertificate(root, { commonName: 'Other' });
  await writeFile(join(dir, 'chain.pem'), certificatesToPem([leaf.certificate, root.certificate]));
  await writeFile(join(dir, 'key.pem'), await privateKeyToPem(leaf.keys.privateKey));
  await writeFile(join(dir, 'other-key.pem'), await privateKeyToPem(other.keys.privateKey));
  const base = { ...devSource(dir), certificateFile: join(dir, 'chain.pem') };
  await t.throwsAsync(loadSigningIdentity(base), { message: 'ACCESS_CERTIFICATE_FILE and ACCESS_KEY_FILE: set both or neither' });
  const identity = await loadSigningIdentity({ ...base, keyFile: join(dir, 'key.pem') });
  t.deepEqual(identity.x5c, x5cOf([leaf.certificate]));
  await t.throwsAsync(loadSigningIdentity({ ...base, keyFile: join(dir, 'other-key.pem') }), { message: 'the private key does not match the certificate' });
});

test('ops certificates generate writes a CA and a leaf that validate, and never overwrites', async (t) => {
  const dir = join(await mkdtemp(join(tmpdir(), 'ops-certs-')), 'out');
  const generated = await generateCertificateFiles(dir, 'connector.example');
  if (!generated) return t.fail('refused an empty directory');
  const [leaf] = certificatesFromPem(await readFile(join(dir, 'certificate.pem'), 'utf8'));
  const [ca] = certificatesFromPem(await readFile(join(dir, 'ca.pem'), 'utf8'));
  t.true(isRight(await validateChain([leaf!], now)));
  t.is(await findTrustAnchor([leaf!], [ca!], now), ca);
  t.is(generated.client_id, x509HashClientId(leaf!));
  t.is(generated.trust_anchor, Buffer.from(ca!.rawData).toString('base64'));
  const identity = await loadSigningIdentity({ ...devSource(dir), certificateFile: join(dir, 'certificate.pem'), keyFile: join(dir, 'key.pem') });
  t.is(identity.x5c.length, 1);
  t.is(await generateCertificateFiles(dir, 'localhost'), undefined);
  t.deepEqual(certificatesFromPem(await readFile(join(dir, 'certificate.pem'), 'utf8'))[0]?.serialNumber, leaf!.serialNumber);
});
