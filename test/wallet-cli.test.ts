// The wallet on the command line (`npm run wallet -- accept|present`), run as a child process
// against a service whose PUBLIC_URL is really reachable: it keeps its key and credentials in a
// 0600 file, and refuses, sending nothing, a request object that does not verify.
import test from 'ava';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { createCertificateAuthority, x509HashClientId } from '../src/crypto/certificates.js';
import { presentationStream } from '../streams/presentation.js';
import { runScript, walletScript } from './support/processes.js';
import { withReachablePublicUrl } from './support/service.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { createOffer, PID_CLAIMS, verifyIssuedCredential } from './support/wallet/issuanceChecks.js';

let h: VerificationHarness;
let dir: string;

test.before(async () => {
  h = await withReachablePublicUrl((env) => startVerificationHarness(env));
  dir = await mkdtemp(join(tmpdir(), 'wallet-cli-'));
});

test.after.always(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const wallet = (file: string, ...args: string[]) => runScript(walletScript, [...args, '--wallet', file], {}, { timeoutMs: 30_000 });

let files = 0;
const newWalletFile = () => join(dir, `wallet-${++files}.json`);

/** A wallet file holding a PID from the service under test. */
const walletWithPid = async (): Promise<string> => {
  const file = newWalletFile();
  const offer = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
  const accepted = await wallet(file, 'accept', offer.credential_offer_uri);
  if (accepted.code !== 0) throw new Error(`accept failed: ${accepted.stderr}`);
  return file;
};

const eventTypes = async (state: string): Promise<string[]> => {
  const read = await h.service.service.store.readStream(presentationStream(state));
  return read._tag === 'Found' ? read.events.map((e) => e.type) : [];
};

/** A loopback server answering every request with `body` as a request object; counts the requests. */
const serveRequestObject = async (body: string): Promise<{ server: Server; url: string; hits: () => number }> => {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'Content-Type': 'application/oauth-authz-req+jwt' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/request`, hits: () => hits };
};

test('accept keeps the credential in a 0600 wallet file; present answers a request with it, and the verifier gets FULFILLED', async (t) => {
  const file = newWalletFile();
  const offer = await createOffer(h.service, {
    credential_configuration_id: 'pid',
    claims: PID_CLAIMS,
    tx_code: { input_mode: 'numeric', length: 6, description: 'the code in your letter' },
  });
  const accepted = await wallet(file, 'accept', offer.credential_offer_uri, '--tx-code', offer.tx_code_value!);
  t.is(accepted.code, 0, accepted.stderr);
  t.regex(accepted.stdout, /credential endpoint: an SD-JWT VC, signed by its x5c leaf, bound to the holder key/);
  t.is((await stat(file)).mode & 0o777, 0o600);
  const content = JSON.parse(await readFile(file, 'utf8')) as { holder_key: Record<string, string>; credentials: { credential: string; issuer: string; vct: string }[] };
  t.is(content.credentials.length, 1);
  t.like(content.credentials[0], { issuer: h.service.config.publicUrl, vct: 'urn:eudi:pid:1' });
  // The independent library accepts what the wallet kept, bound to the key the file holds.
  const verified = await verifyIssuedCredential(h.service, content.credentials[0]!.credential);
  const { kty, crv, x, y } = content.holder_key;
  t.deepEqual((verified.payload['cnf'] as { jwk: unknown }).jwk, { kty, crv, x, y });

  const created = await h.request({ dcql_query: pidQuery() });
  const presented = await wallet(file, 'present', created.cross_device_request_uri);
  t.is(presented.code, 0, presented.stderr);
  t.regex(presented.stdout, /request object verified: ES256 signature by the x5c leaf/);
  t.regex(presented.stdout, /disclosing given_name, family_name; key binding/);
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  const [credential] = (callback['credentials'] as Record<string, Record<string, unknown>[]>)['pid']!;
  t.like(credential, { kbSignatureIsValid: true, claims: { given_name: 'Erika', family_name: 'Mustermann' } });
  t.false('birthdate' in (credential!['claims'] as object));
  // The credential's plain registered claims other than iss, iat, nbf, exp, cnf and status reach the callback: vct, and sub.
  t.like(credential, { claims: { vct: 'urn:eudi:pid:1', sub: `urn:ietf:params:oauth:jwk-thumbprint:sha-256:${await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256')}` } });
});

test('accept without the transaction code the offer needs says so and spends nothing: the code still works after', async (t) => {
  const file = newWalletFile();
  const offer = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, tx_code: { input_mode: 'numeric', length: 4 } });
  const refused = await wallet(file, 'accept', offer.credential_offer_uri);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /wallet: the offer needs a transaction code \(numeric, 4 characters\): pass --tx-code/);
  await t.throwsAsync(stat(file));
  const accepted = await wallet(file, 'accept', offer.credential_offer_uri, '--tx-code', offer.tx_code_value!);
  t.is(accepted.code, 0, accepted.stderr);
});

test('present refuses a request object whose signature does not verify and sends nothing; the session still takes the honest answer', async (t) => {
  const file = await walletWithPid();
  const created = await h.request({ dcql_query: pidQuery() });
  const uri = new URL(created.cross_device_request_uri);
  const honest = await (await fetch(uri.searchParams.get('request_uri')!)).text();
  const [header, payload, signature] = honest.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, response_uri: 'http://127.0.0.1:9/steal' })).toString('base64url')}.${signature}`;
  const served = await serveRequestObject(forged);
  try {
    uri.searchParams.set('request_uri', served.url);
    const refused = await wallet(file, 'present', uri.toString());
    t.is(refused.code, 1);
    t.regex(refused.stderr, /wallet: request object: the signature does not verify with the x5c leaf/);
    t.is(served.hits(), 1);
  } finally {
    served.server.close();
  }
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched']);
  const presented = await wallet(file, 'present', created.cross_device_request_uri);
  t.is(presented.code, 0, presented.stderr);
  t.is((await h.callback(created.state))['status'], 'FULFILLED');
});

test('present refuses a request whose client_id is not the hash of the signing certificate, and sends nothing', async (t) => {
  const file = await walletWithPid();
  const created = await h.request({ dcql_query: pidQuery() });
  const uri = new URL(created.cross_device_request_uri);
  const other = await createCertificateAuthority({ commonName: 'Someone else' });
  uri.searchParams.set('client_id', x509HashClientId(other.certificate));
  const refused = await wallet(file, 'present', uri.toString());
  t.is(refused.code, 1);
  t.regex(refused.stderr, /wallet: request object: client_id is not the hash of the x5c leaf/);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched']);
});

test('present with no credential of the requested type says which query it cannot answer, and sends nothing', async (t) => {
  const file = await walletWithPid();
  const created = await h.request({
    dcql_query: { credentials: [{ id: 'card', format: 'dc+sd-jwt', meta: { vct_values: ['urn:example:membership:1'] }, claims: [{ path: ['member_number'] }] }] },
  });
  const refused = await wallet(file, 'present', created.cross_device_request_uri);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /wallet: cannot answer this request: no credential answers query "card"/);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested', 'PresentationRequestFetched']);
});

test('a wallet file others may read is refused: it holds a private key', async (t) => {
  const file = await walletWithPid();
  await chmod(file, 0o644);
  const created = await h.request({ dcql_query: pidQuery() });
  const refused = await wallet(file, 'present', created.cross_device_request_uri);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /may be read by others \(mode 644\).*chmod 600/);
  t.deepEqual(await eventTypes(created.state), ['PresentationRequested']);
});

test('--help of the wallet and of each command exits 0', async (t) => {
  for (const args of [['--help'], ['accept', '--help'], ['present', '--help']]) {
    const result = await runScript(walletScript, args, {}, { timeoutMs: 30_000 });
    t.is(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    t.regex(result.stdout, /Usage: npm run -s wallet --/);
  }
});
