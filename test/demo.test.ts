// `npm run demo` as a child process: with no connector ready at --connector it starts its own,
// runs the flows (an SD-JWT VC PID, then an mDL), shows the URIs, the request object and the callbacks with their signatures
// verified, and leaves nothing behind; with one ready it uses it. And the demo receiver's
// Standard Webhooks check.
import test from 'ava';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signature } from '../src/callbacks/signature.js';
import { verifyWebhook } from '../demo/receiver.js';
import { demoScript, runScript } from './support/processes.js';
import { TEST_WEBHOOK_SECRET } from './support/receiver.js';
import { BOOTSTRAP_KEY, withReachablePublicUrl } from './support/service.js';
import { startVerificationHarness } from './support/wallet/connector.js';

// Generous: the demo takes a few seconds; this only keeps a wedged demo from hanging the suite.
const DEMO_TIMEOUT_MS = 60_000;

/** A loopback address nothing listens on (the port was free a moment ago). */
const closedAddress = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
};

/** Runs the demo with TMPDIR in a fresh directory; the run, and what it left there. */
const runDemo = async (args: string[], env: Record<string, string> = {}) => {
  const tmp = await mkdtemp(join(tmpdir(), 'demo-test-'));
  try {
    const result = await runScript(demoScript, args, { TMPDIR: tmp, ...env }, { timeoutMs: DEMO_TIMEOUT_MS });
    return { ...result, leftBehind: await readdir(tmp) };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
};

const count = (text: string, part: string): number => text.split(part).length - 1;

test('with no connector ready, the demo starts one, runs issuance and presentation with callbacks, exits 0 and leaves nothing behind', async (t) => {
  const connector = await closedAddress();
  const run = await runDemo(['--connector', connector]);
  t.is(run.code, 0, run.stderr);
  t.is(run.stderr, '');
  const out = run.stdout;
  t.true(out.includes(`nothing answers at ${connector}`));
  t.true(out.includes('starting one on the embedded store'));
  t.regex(out, /openid-credential-offer:\/\/\?credential_offer_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Foidc4vci%2Foffers%2F/);
  t.regex(out, /transaction code, for the user through another channel: \d{4}\n/);
  t.regex(out, /credential endpoint: an SD-JWT VC, signed by its x5c leaf, bound to the holder key/);
  // The authorization code flow, through the demo's login page.
  t.regex(out, /login page: the user logs in; POST \/authorizations\/[^ ]+\/complete with their claims/);
  t.regex(out, /token endpoint: PKCE, wallet attestation and a DPoP proof with the server's nonce/);
  t.regex(out, /openid4vp:\/\/\?client_id=x509_hash%3A[A-Za-z0-9_-]{43}&request_uri=http%3A%2F%2F127\.0\.0\.1/);
  // QR codes, drawn with half blocks.
  t.true(count(out, '▄▄▄▄▄▄▄') >= 4);
  t.regex(out, /request object verified: ES256 signature by the x5c leaf/);
  t.regex(out, /request object header:\n\s+\{\n\s+"alg": "ES256",\n\s+"typ": "oauth-authz-req\+jwt"/);
  t.regex(out, /request object claims:\n\s+\{\n\s+"client_id": "x509_hash:/);
  t.regex(out, /disclosing given_name, family_name, address\.locality, age_equal_or_over\.18; key binding/);
  for (const status of ['OFFER_CREATED', 'ISSUED', 'FULFILLED']) {
    t.regex(out, new RegExp(`${status}: webhook-id [0-9a-f-]{36}, Standard Webhooks signature verified`));
  }
  t.regex(out, /"given_name": "Erika"/);
  t.regex(out, /"kbSignatureIsValid": true/);
  // The mDL: issued as an mdoc, presented as a DeviceResponse, its elements decoded in the callback.
  t.regex(out, /credential endpoint: an mdoc \(org\.iso\.18013\.5\.1\.mDL\), signed by its x5chain leaf, every digest matching, bound to the holder key/);
  t.regex(out, /disclosing org\.iso\.18013\.5\.1\/family_name, org\.iso\.18013\.5\.1\/driving_privileges, org\.iso\.18013\.5\.1\/age_over_18; device signature/);
  t.regex(out, /"format": "mso_mdoc"/);
  t.regex(out, /"vehicle_category_code":"B"/);
  // Two organisations, onboarded through the management API: each issues under its own credential
  // issuer and verifies under its own client id, neither the deployment's.
  const issuers = [...out.matchAll(/(Bank|City): credential_issuer (http:\/\/127\.0\.0\.1:\d+\/issuers\/[0-9a-f-]{36})\n/g)].map((m) => [m[1]!, m[2]!] as const);
  const clients = new Map([...out.matchAll(/(Bank|City): client_id (x509_hash:[A-Za-z0-9_-]{43})\n/g)].map((m) => [m[1]!, m[2]!] as const));
  t.deepEqual(issuers.map(([name]) => name), ['Bank', 'City']);
  t.not(issuers[0]![1], issuers[1]![1]);
  t.not(clients.get('Bank'), clients.get('City'));
  const deploymentClientId = /openid4vp:\/\/\?client_id=(x509_hash%3A[A-Za-z0-9_-]{43})/.exec(out)![1]!.replace('%3A', ':');
  for (const [name, issuer] of issuers) {
    const clientId = clients.get(name)!;
    t.not(clientId, deploymentClientId);
    t.true(out.includes(`issuer metadata at ${issuer.replace('/issuers/', '/.well-known/openid-credential-issuer/issuers/')}: credential endpoint ${issuer}/oidc4vci/credential`), name);
    t.true(out.includes(`${name}: issued by ${issuer}, verified under ${clientId}`), name);
  }
  t.regex(out, /all flows end to end in [\d.]+ s/);
  t.deepEqual(run.leftBehind, []);
});

test('with a connector ready at --connector, the demo uses it with --api-key; its callbacks go to the tenant\'s URL', async (t) => {
  const h = await withReachablePublicUrl((env) => startVerificationHarness(env));
  try {
    const run = await runDemo(['--connector', h.service.service.managementUrl, '--api-key', BOOTSTRAP_KEY]);
    t.is(run.code, 0, run.stderr);
    t.true(run.stdout.includes(`a connector is ready at ${h.service.service.managementUrl}: using it`));
    t.false(run.stdout.includes('Standard Webhooks signature verified'));
    t.true(run.stdout.includes("two organisations each with its own issuer and verifier are shown only with the demo's own connector"));
    t.true(await h.receiver.until((received) => ['OFFER_CREATED', 'ISSUED', 'FULFILLED'].every((status) => received.some((r) => JSON.parse(r.body).status === status))));
    t.deepEqual(run.leftBehind, []);
  } finally {
    await h.close();
  }
});

test('with a connector ready and no API key, the demo says how to give one and exits 1 without creating anything', async (t) => {
  const h = await withReachablePublicUrl((env) => startVerificationHarness(env));
  try {
    const run = await runDemo(['--connector', h.service.service.managementUrl]);
    t.is(run.code, 1);
    t.regex(run.stderr, /demo failed: a connector is ready at .*: give its API key with --api-key or BOOTSTRAP_API_KEY/);
    t.deepEqual(h.receiver.received, []);
    t.deepEqual(run.leftBehind, []);
  } finally {
    await h.close();
  }
});

test('the demo receiver accepts a Standard Webhooks signature by its secret, within five minutes, and nothing else', (t) => {
  const body = '{"status":"ISSUED"}';
  const now = 1_800_000_000;
  const headers = (timestamp: number, signed = body, secret = TEST_WEBHOOK_SECRET) => ({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,bm90IHRoaXMgb25l ${signature(secret, 'msg_1', timestamp, signed)}`,
  });
  t.true(verifyWebhook(TEST_WEBHOOK_SECRET, headers(now), body, now));
  t.true(verifyWebhook(TEST_WEBHOOK_SECRET, headers(now - 299), body, now));
  t.false(verifyWebhook(TEST_WEBHOOK_SECRET, headers(now - 301), body, now));
  t.false(verifyWebhook(TEST_WEBHOOK_SECRET, headers(now), '{"status":"FAILED"}', now));
  t.false(verifyWebhook(TEST_WEBHOOK_SECRET, headers(now, body, 'whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCBrZXkh'), body, now));
  t.false(verifyWebhook(TEST_WEBHOOK_SECRET, { ...headers(now), 'webhook-id': 'msg_2' }, body, now));
});
