// Trust end to end: X509_TRUST_POLICY for an issuer outside the configured trust anchors, the
// DCQL trusted_authorities of type aki, and CRL distribution points behind the egress guard.
import test from 'ava';
import { createCertificateAuthority, createCrl } from '../src/crypto/certificates.js';
import { x509 } from '../src/crypto/x509.js';
import { createTestIssuer, sd } from './support/credentials.js';
import { startCrlServer } from './support/crlServer.js';
import { pidQuery, PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';

/** A harness whose only trust anchor is a CA that did not issue the test credentials. */
const withStrangerAnchor = async (policy: string, body: (h: VerificationHarness) => Promise<void>) => {
  const stranger = await createCertificateAuthority({ commonName: 'Some Other Root CA' });
  const h = await startVerificationHarness({
    X509_VERIFY_TRUST_ANCHOR: 'true',
    X509_TRUST_ANCHORS: Buffer.from(stranger.certificate.rawData).toString('base64'),
    X509_TRUST_POLICY: policy,
  });
  try {
    await body(h);
  } finally {
    await h.close();
  }
};

const credentialOf = (callback: Record<string, unknown>) =>
  (callback['credentials'] as Record<string, Record<string, unknown>[]>)['pid']![0]!;

test('enforce, same device: an untrusted issuer is VERIFICATION_FAILED, redirected with a response code', async (t) => {
  await withStrangerAnchor('enforce', async (h) => {
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done' }, 'same-device');
    const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
    t.is(posted.status, 200);
    const responseCode = new URL(posted.body['redirect_uri'] as string).searchParams.get('response_code');
    t.truthy(responseCode);
    const callback = await h.callback(created.state);
    t.like(callback, { status: 'VERIFICATION_FAILED', responseCode });
    t.regex(callback['errorDetails'] as string, /trust anchor/);
    t.false('credentials' in callback);
  });
});

test('enforce, cross device: an untrusted issuer is VERIFICATION_FAILED without a response code', async (t) => {
  await withStrangerAnchor('enforce', async (h) => {
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() }, 'cross-device');
    await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
    const callback = await h.callback(created.state);
    t.is(callback['status'], 'VERIFICATION_FAILED');
    t.false('responseCode' in callback);
  });
});

test('evaluate: an untrusted issuer is FULFILLED and reported isTrusted false', async (t) => {
  await withStrangerAnchor('evaluate', async (h) => {
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
    await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
    const callback = await h.callback(created.state);
    t.is(callback['status'], 'FULFILLED');
    t.like(credentialOf(callback), { supportTrustAnchor: true, isTrusted: false, isCertificateRevoked: false });
  });
});

test('disabled: the credential is FULFILLED and carries no trust fields', async (t) => {
  await withStrangerAnchor('disabled', async (h) => {
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
    await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
    const callback = await h.callback(created.state);
    t.is(callback['status'], 'FULFILLED');
    const credential = credentialOf(callback);
    t.is(credential['supportTrustAnchor'], false);
    t.false('isTrusted' in credential);
    t.false('isCertificateRevoked' in credential);
  });
});

test('trusted_authorities aki: a chain carrying the AuthorityKeyIdentifier is FULFILLED, another VERIFICATION_FAILED', async (t) => {
  const h = await startVerificationHarness();
  try {
    const keyIdHex = h.issuer.leaf.certificate.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
    if (!keyIdHex) throw new Error('the test issuer leaf has no AuthorityKeyIdentifier');
    const issuersAki = Buffer.from(keyIdHex, 'hex').toString('base64url');
    const outcome = async (aki: string) => {
      const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery({ trusted_authorities: [{ type: 'aki', values: [aki] }] }) });
      await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
      return h.callback(created.state);
    };
    t.is((await outcome(issuersAki))['status'], 'FULFILLED');
    const refused = await outcome(Buffer.from('some other authority key').toString('base64url'));
    t.is(refused['status'], 'VERIFICATION_FAILED');
    t.regex(refused['errorDetails'] as string, /trusted_authorities/);
  } finally {
    await h.close();
  }
});

test('a CRL distribution point on a private address is refused before any connection without EGRESS_ALLOW_PRIVATE_NETWORKS; the wallet is told only that verification failed', async (t) => {
  const server = await startCrlServer();
  t.teardown(() => server.close());
  const port = new URL(server.url('/')).port;
  for (const [crlUrl, reason] of [
    [server.url('/leaf.crl'), /CRL http:\/\/127\.0\.0\.1:\d+\/leaf\.crl names a private or reserved address$/],
    [`http://localhost:${port}/leaf.crl`, /CRL http:\/\/localhost:\d+\/leaf\.crl resolves to a private or reserved address$/],
  ] as const) {
    const issuer = await createTestIssuer({ crlUrl });
    server.serve('/leaf.crl', { status: 200, body: new Uint8Array((await createCrl(issuer.ca)).rawData) });
    const anchors = { X509_VERIFY_TRUST_ANCHOR: 'true', X509_TRUST_ANCHORS: Buffer.from(issuer.ca.certificate.rawData).toString('base64') };
    const outcome = async (egress: string) => {
      const h = await startVerificationHarness({ ...anchors, EGRESS_ALLOW_PRIVATE_NETWORKS: egress });
      try {
        const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
        const credential = await issuer.issue({ vct: PID_VCT, holder: h.holder, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') } });
        const posted = await answer(h.endpoints, request, { pid: { credential, holder: h.holder } });
        return { wallet: { status: posted.status, body: posted.body }, callback: await h.callback(created.state) };
      } finally {
        await h.close();
      }
    };
    const before = server.connections();
    const refused = await outcome('false');
    t.is(refused.callback['status'], 'VERIFICATION_FAILED', crlUrl);
    t.regex(refused.callback['errorDetails'] as string, reason);
    t.deepEqual(refused.wallet, { status: 400, body: { error: 'invalid_request', error_description: 'The presentation failed verification.' } });
    t.is(server.connections(), before, 'the CRL server saw no connection');
    // The switch on: the same CRL is fetched and the issuer trusted.
    const allowed = await outcome('true');
    t.is(allowed.callback['status'], 'FULFILLED', crlUrl);
    t.like(credentialOf(allowed.callback), { isTrusted: true, isCertificateRevoked: false });
    t.true(server.connections() > before);
  }
});
