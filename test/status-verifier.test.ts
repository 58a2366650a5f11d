// The verifier's side of credential status end to end: credentials issued by this connector and
// presented to it, revoked, suspended and reinstated through its management API; and credentials
// of another issuer (a fixture with its own chain and key) whose Status List Tokens a loopback
// server serves, honest, forged, unreachable and redirected.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { importJWK } from 'jose';
import { createLeafCertificate, generateP256KeyPair, x5cOf, type CryptoKey } from '../src/crypto/certificates.js';
import { createTestIssuer, sd, type Holder, type IssuedCredential } from './support/credentials.js';
import { withReachablePublicUrl } from './support/service.js';
import { packLst, signStatusList, startStatusListServer, type StatusListServer } from './support/statusLists.js';
import { startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, waitForOffer } from './support/wallet/issuanceChecks.js';
import { answer } from './support/wallet/presentation.js';

const MEMBERSHIP_VCT = 'urn:example:membership:1';
const PID_VCT = 'urn:eudi:pid:1';

const query = (vct: string) => ({
  credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }],
});

const credentialOf = (callback: Record<string, unknown>) => (callback['credentials'] as Record<string, Record<string, unknown>[]>)['pid']![0]!;

/** Presents `credential` (held by `holder`) to the harness's connector, cross-device; what the wallet was told and the callback. */
const presentedWithAnswer = async (h: VerificationHarness, vct: string, credential: IssuedCredential, holder: Holder) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: query(vct) });
  const posted = await answer(h.endpoints, request, { pid: { credential, holder } });
  return { wallet: { status: posted.status, body: posted.body }, callback: await h.callback(created.state) };
};

/** Presents `credential` (held by `holder`) to the harness's connector; the callback it leads to. */
const presented = async (h: VerificationHarness, vct: string, credential: IssuedCredential, holder: Holder): Promise<Record<string, unknown>> =>
  (await presentedWithAnswer(h, vct, credential, holder)).callback;

/** An SD-JWT VC as issued, split into the test wallet's form: disclosures by claim name. */
const held = (sdJwt: string): IssuedCredential => {
  const [jwt, ...rest] = sdJwt.split('~');
  const disclosures: Record<string, string> = {};
  for (const encoded of rest.filter((d) => d !== '')) {
    const [, name] = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as [string, string, unknown];
    disclosures[name] = encoded;
  }
  return { jwt: jwt!, disclosures };
};

// --- credentials this connector issued, presented to it

test('issue, present FULFILLED with supportRevocation; suspend, reinstate and revoke each show once the cached list\'s ttl has run out', async (t) => {
  const h = await withReachablePublicUrl((env) => startVerificationHarness({ ...env, STATUS_LIST_TTL_SECONDS: '1' }));
  try {
    const s = h.service;
    const offer = await createOffer(s, { credential_configuration_id: 'membership', claims: { member_number: 'M-9', given_name: 'Erika', family_name: 'Mustermann' } });
    const wallet = await IssuanceWallet.create(s.config.publicUrl, s.service.publicListenUrl);
    const credential = held(await wallet.receive(offer.credential_offer_uri));
    await waitForOffer(s, offer.offer_id, (b) => b.status === 'ISSUED' && b.claims_purged);
    const holder: Holder = { keys: { privateKey: wallet.holderKey.privateKey, publicKey: (await importJWK(wallet.holderKey.publicJwk, 'ES256')) as CryptoKey }, publicJwk: wallet.holderKey.publicJwk };
    const present = () => presented(h, MEMBERSHIP_VCT, credential, holder);
    const setStatus = async (status: string) =>
      (await s.management(`/offers/${offer.offer_id}/credential-status`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status }) })).status;
    // The verifier holds a list for its ttl (1 s here), counted from its fetch.
    const afterTtl = () => sleep(1_100);

    const first = await present();
    t.is(first['status'], 'FULFILLED');
    t.like(credentialOf(first), { supportRevocation: true, signatureIsValid: true });
    t.false('statusCheck' in credentialOf(first));
    const metrics = await (await s.management('/metrics')).text();
    t.regex(metrics, /^connector_status_list_fetches_total\{outcome="accepted"\} 1$/m, 'the fetch is counted');

    t.is(await setStatus('suspended'), 200);
    await afterTtl();
    const suspended = await present();
    t.is(suspended['status'], 'VERIFICATION_FAILED');
    t.regex(suspended['errorDetails'] as string, /credential is suspended/);
    t.false('responseCode' in suspended);

    t.is(await setStatus('valid'), 200);
    await afterTtl();
    t.is((await present())['status'], 'FULFILLED');

    t.is(await setStatus('revoked'), 200);
    await afterTtl();
    const revoked = await present();
    t.is(revoked['status'], 'VERIFICATION_FAILED');
    t.regex(revoked['errorDetails'] as string, /credential is revoked/);
    t.is(await setStatus('valid'), 409);
  } finally {
    await h.close();
  }
});

// --- another issuer's credentials and its own status list server

interface Fixture {
  readonly h: VerificationHarness;
  readonly server: StatusListServer;
  /** A credential of the harness's issuer naming entry `idx` of the list at `path` on the server (or at a whole URL). */
  credential(path: string, idx: number): Promise<IssuedCredential>;
  /** Serves a 2-bit list at `path` signed by the issuer's own leaf (or `signer`), `set` its non-VALID entries. */
  serve(path: string, set?: Record<number, number>, overrides?: Partial<Parameters<typeof signStatusList>[1]> & { signer?: Parameters<typeof signStatusList>[0] }): Promise<void>;
  present(credential: IssuedCredential): Promise<Record<string, unknown>>;
  /** What the wallet was told, and the callback. */
  presentWithAnswer(credential: IssuedCredential): ReturnType<typeof presentedWithAnswer>;
}

const withFixture = async (env: Record<string, string>, body: (f: Fixture) => Promise<void>) => {
  const h = await startVerificationHarness(env);
  const server = await startStatusListServer();
  const issuerSigner = { privateKey: h.issuer.leaf.keys.privateKey, x5c: h.issuer.x5c };
  try {
    await body({
      h,
      server,
      credential: (path, idx) =>
        h.issuer.issue({
          vct: PID_VCT,
          holder: h.holder,
          claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), status: { status_list: { idx, uri: path.startsWith('http') ? path : server.url(path) } } },
        }),
      async serve(path, set = {}, overrides = {}) {
        const { signer, ...claims } = overrides;
        server.serve(path, { status: 200, body: await signStatusList(signer ?? issuerSigner, { sub: server.url(path), lst: packLst(2, 64, set), bits: 2, ...claims }) });
      },
      present: (credential) => presented(h, PID_VCT, credential, h.holder),
      presentWithAnswer: (credential) => presentedWithAnswer(h, PID_VCT, credential, h.holder),
    });
  } finally {
    await server.close();
    await h.close();
  }
};

test('another issuer\'s credential with its status list: VALID is FULFILLED; INVALID, SUSPENDED, 0x03 and an idx outside fail whatever the policy', async (t) => {
  await withFixture({}, async (f) => {
    await f.serve('/lists/1', { 1: 1, 2: 2, 3: 3 });
    const valid = await f.present(await f.credential('/lists/1', 0));
    t.is(valid['status'], 'FULFILLED');
    t.like(credentialOf(valid), { supportRevocation: true });
    t.is(f.server.accept('/lists/1'), 'application/statuslist+jwt, application/statuslist+cwt;q=0.9');
    const outcomes = [];
    for (const idx of [1, 2, 3, 64]) outcomes.push(await f.present(await f.credential('/lists/1', idx)));
    t.true(outcomes.every((o) => o['status'] === 'VERIFICATION_FAILED'));
    t.deepEqual(
      outcomes.map((o) => o['errorDetails']),
      [
        'credential is revoked: its status list says INVALID',
        'credential is suspended: its status list says SUSPENDED',
        'credential status is 0x03, which is not VALID',
        'credential status index is outside its status list',
      ],
    );
    // Held for its ttl: five presentations, one fetch.
    t.is(f.server.hits('/lists/1'), 1);
  });
});

test('forged or unusable status lists fail closed: wrong key, stranger\'s chain, wrong sub, expired, tampered lst, wrong typ, no iat, unreachable', async (t) => {
  // 3 s: long enough that only the silent server is the one timed out on a busy machine.
  await withFixture({ STATUS_LIST_FETCH_TIMEOUT_SECONDS: '3' }, async (f) => {
    const stranger = await createTestIssuer();
    const otherKey = await generateP256KeyPair();
    await f.serve('/wrong-key', {}, { signer: { privateKey: otherKey.privateKey, x5c: f.h.issuer.x5c } });
    await f.serve('/stranger', {}, { signer: { privateKey: stranger.leaf.keys.privateKey, x5c: stranger.x5c } });
    await f.serve('/wrong-sub', {}, { sub: f.server.url('/somewhere-else') });
    await f.serve('/expired', {}, { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 60 });
    await f.serve('/typ', {}, { typ: 'jwt' });
    await f.serve('/no-iat', {}, { iat: null });
    // A list saying VALID whose signed payload said INVALID for entry 0: the signature no longer holds.
    const honest = await signStatusList({ privateKey: f.h.issuer.leaf.keys.privateKey, x5c: f.h.issuer.x5c }, { sub: f.server.url('/tampered'), lst: packLst(2, 64, { 0: 1 }), bits: 2 });
    const [header, payload, signature] = honest.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as { status_list: { lst: string } };
    claims.status_list.lst = packLst(2, 64);
    f.server.serve('/tampered', { status: 200, body: `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}` });
    f.server.serve('/gone', { status: 404, body: '' });
    f.server.serve('/silent', 'hang');
    const expected: Record<string, RegExp> = {
      '/wrong-key': /signature does not verify/,
      '/stranger': /is not signed by the credential's issuer or a certificate of its trust/,
      '/wrong-sub': /sub is not the uri the credential names/,
      '/expired': /expired at/,
      '/typ': /typ is "jwt"/,
      '/no-iat': /has no iat/,
      '/tampered': /signature does not verify/,
      '/gone': /answered HTTP 404/,
      '/silent': /timed out after 3000 ms/,
      '/not-served': /answered HTTP 404/,
    };
    for (const [path, reason] of Object.entries(expected)) {
      const callback = await f.present(await f.credential(path, 0));
      t.is(callback['status'], 'VERIFICATION_FAILED', path);
      t.regex(callback['errorDetails'] as string, /^credential status unknown: status list http:\/\/127\.0\.0\.1:\d+\//, path);
      t.regex(callback['errorDetails'] as string, reason, path);
    }
  });
});

// --- URLs the wallet's credential chose: the egress guard, and nothing learned reaches the wallet

/** The wallet's answer to any failed verification, cross-device. */
const failedVerification = { status: 400, body: { error: 'invalid_request', error_description: 'The presentation failed verification.' } };

test('without EGRESS_ALLOW_PRIVATE_NETWORKS a status list on a private address is refused in each notation before any connection', async (t) => {
  await withFixture({ EGRESS_ALLOW_PRIVATE_NETWORKS: 'false' }, async (f) => {
    await f.serve('/lists/1');
    const port = new URL(f.server.url('/')).port;
    const uris: Record<string, RegExp> = {
      [f.server.url('/lists/1')]: /names a private or reserved address$/,
      [`http://2130706433:${port}/lists/1`]: /names a private or reserved address$/,
      [`http://0x7f.1:${port}/lists/1`]: /names a private or reserved address$/,
      [`http://[::ffff:127.0.0.1]:${port}/lists/1`]: /names a private or reserved address$/,
      [`http://localhost:${port}/lists/1`]: /resolves to a private or reserved address$/,
    };
    for (const [uri, reason] of Object.entries(uris)) {
      const { wallet, callback } = await f.presentWithAnswer(await f.credential(uri, 0));
      t.is(callback['status'], 'VERIFICATION_FAILED', uri);
      t.regex(callback['errorDetails'] as string, /^credential status unknown: status list /, uri);
      t.regex(callback['errorDetails'] as string, reason, uri);
      t.deepEqual(wallet, failedVerification, uri);
    }
    t.is(f.server.connections(), 0, 'the list server saw no connection');
  });
});

test('the wallet is told the same whatever the status list URL answered; what it answered goes to the callback only', async (t) => {
  await withFixture({}, async (f) => {
    f.server.serve('/gone', { status: 404, body: 'no such list' });
    f.server.serve('/metrics', { status: 200, body: 'connector_http_requests_total 42', contentType: 'text/plain' });
    f.server.serve('/elsewhere', { redirect: '/metrics' });
    const outcomes = [];
    for (const path of ['/gone', '/metrics', '/elsewhere']) outcomes.push(await f.presentWithAnswer(await f.credential(path, 0)));
    t.deepEqual(outcomes.map((o) => o.callback['status']), ['VERIFICATION_FAILED', 'VERIFICATION_FAILED', 'VERIFICATION_FAILED']);
    t.regex(outcomes[0]!.callback['errorDetails'] as string, /answered HTTP 404$/);
    t.regex(outcomes[1]!.callback['errorDetails'] as string, /is not a JWS$/);
    t.regex(outcomes[2]!.callback['errorDetails'] as string, /is not a JWS$/);
    for (const { wallet } of outcomes) t.deepEqual(wallet, failedVerification);
    t.false(JSON.stringify(outcomes.map((o) => o.wallet)).includes('42'), 'nothing the target sent');
  });
});

test('a credential that fails its own checks fetches no status list', async (t) => {
  await withFixture({}, async (f) => {
    await f.serve('/lists/never');
    const expired = await f.h.issuer.issue({
      vct: PID_VCT,
      holder: f.h.holder,
      exp: new Date(Date.now() - 60_000),
      claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), status: { status_list: { idx: 0, uri: f.server.url('/lists/never') } } },
    });
    const callback = await f.present(expired);
    t.is(callback['status'], 'VERIFICATION_FAILED');
    t.regex(callback['errorDetails'] as string, /credential expired/);
    t.is(f.server.hits('/lists/never'), 0);
  });
});

test('redirects: three are followed, a fourth is refused', async (t) => {
  await withFixture({}, async (f) => {
    await f.serve('/final');
    // The list's sub is the uri the credential names, wherever it was fetched from in the end.
    await f.serve('/final-for-3', {}, { sub: f.server.url('/r3/1') });
    f.server.serve('/r3/1', { redirect: '/r3/2' });
    f.server.serve('/r3/2', { redirect: f.server.url('/r3/3'), status: 307 });
    f.server.serve('/r3/3', { redirect: '/final-for-3', status: 301 });
    t.is((await f.present(await f.credential('/r3/1', 0)))['status'], 'FULFILLED');
    f.server.serve('/r4/1', { redirect: '/r4/2' });
    f.server.serve('/r4/2', { redirect: '/r4/3' });
    f.server.serve('/r4/3', { redirect: '/r4/4' });
    f.server.serve('/r4/4', { redirect: '/final' });
    const refused = await f.present(await f.credential('/r4/1', 0));
    t.is(refused['status'], 'VERIFICATION_FAILED');
    t.regex(refused['errorDetails'] as string, /redirected more than 3 times/);
    t.is(f.server.hits('/final'), 0);
  });
});

test('a list signed by another certificate of the issuer\'s CA is accepted; with anchoring on, one under the same anchor too', async (t) => {
  // The issuer's x5c carries its intermediate CA: a status signer under that CA ties to it.
  const issuer = await createTestIssuer({ intermediate: true });
  const statusSigner = await createLeafCertificate(issuer.intermediate!, { commonName: 'Status signer' });
  const anchorOnly = await createLeafCertificate(issuer.ca, { commonName: 'Status signer under the root' });
  const ca = Buffer.from(issuer.ca.certificate.rawData).toString('base64');
  for (const anchoring of [false, true]) {
    await withFixture(anchoring ? { X509_VERIFY_TRUST_ANCHOR: 'true', X509_TRUST_ANCHORS: ca, X509_TRUST_POLICY: 'enforce' } : {}, async (f) => {
      const credential = (path: string) =>
        issuer.issue({ vct: PID_VCT, holder: f.h.holder, claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), status: { status_list: { idx: 0, uri: f.server.url(path) } } } });
      await f.serve('/intermediate', {}, { signer: { privateKey: statusSigner.keys.privateKey, x5c: x5cOf([statusSigner.certificate, issuer.intermediate!.certificate]) } });
      await f.serve('/root', {}, { signer: { privateKey: anchorOnly.keys.privateKey, x5c: x5cOf([anchorOnly.certificate]) } });
      t.is((await f.present(await credential('/intermediate')))['status'], 'FULFILLED', `shared CA, anchoring ${anchoring}`);
      const underRoot = await f.present(await credential('/root'));
      if (anchoring) t.is(underRoot['status'], 'FULFILLED', 'same anchor');
      else t.regex(underRoot['errorDetails'] as string, /not signed by the credential's issuer/, 'no anchor to compare, no shared CA');
    });
  }
});

test('STATUS_LIST_FAILURE_POLICY=evaluate: an unavailable list is FULFILLED with statusCheck unavailable; a valid one says valid; revoked still fails', async (t) => {
  await withFixture({ STATUS_LIST_FAILURE_POLICY: 'evaluate' }, async (f) => {
    await f.serve('/lists/1', { 1: 1 });
    const valid = await f.present(await f.credential('/lists/1', 0));
    t.is(valid['status'], 'FULFILLED');
    t.like(credentialOf(valid), { supportRevocation: true, statusCheck: 'valid' });
    const unavailable = await f.present(await f.credential('/lists/gone', 0));
    t.is(unavailable['status'], 'FULFILLED');
    t.like(credentialOf(unavailable), { supportRevocation: true, statusCheck: 'unavailable' });
    const revoked = await f.present(await f.credential('/lists/1', 1));
    t.is(revoked['status'], 'VERIFICATION_FAILED');
    t.regex(revoked['errorDetails'] as string, /revoked/);
    // No status reference, no status fields beyond supportRevocation: false.
    const plain = credentialOf(await f.present(await f.h.pid()));
    t.is(plain['supportRevocation'], false);
    t.false('statusCheck' in plain);
    // The raw credential object carries no verification flags.
    const raw = (valid['credentialsRaw'] as Record<string, Record<string, unknown>[]>)['pid']![0]!;
    t.false('statusCheck' in raw);
    t.false('supportRevocation' in raw);
  });
});

test('a malformed status claim fails verification; a status object naming another mechanism only is not revocable here', async (t) => {
  await withFixture({}, async (f) => {
    const issue = (status: unknown) =>
      f.h.issuer.issue({ vct: PID_VCT, holder: f.h.holder, claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), status } });
    for (const status of ['revoked', { status_list: { idx: -1, uri: f.server.url('/x') } }, { status_list: { idx: 0 } }, { status_list: { idx: '0', uri: f.server.url('/x') } }]) {
      const callback = await f.present(await issue(status));
      t.is(callback['status'], 'VERIFICATION_FAILED', JSON.stringify(status));
      t.regex(callback['errorDetails'] as string, /^credential status/, JSON.stringify(status));
    }
    const other = await f.present(await issue({ identifiers: { uri: 'https://example.com/other' } }));
    t.is(other['status'], 'FULFILLED');
    t.is(credentialOf(other)['supportRevocation'], false);
    t.is(f.server.hits('/x'), 0);
  });
});
