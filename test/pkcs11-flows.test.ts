// KEY_STORE=pkcs11 end to end against SoftHSM2 (a temporary token per run): a verification and an
// issuance flow complete, the request object and the credential verified with jose and
// @sd-jwt/sd-jwt-vc against the token's keys; no private key or KEK on disk; a token taken away
// (its sessions closed under the connector and its PIN changed) fails only what needs keys, with
// nothing appended, `/health/ready` saying `keys`, and the connector recovers by itself once it is
// back; with the token's store removed, the sealed data stays unreadable.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { fileKek } from '../src/crypto/kek.js';
import { certificatesFromPem } from '../src/crypto/certificates.js';
import { tokenKek } from '../src/crypto/pkcs11/kek.js';
import { openToken, type TokenOptions } from '../src/crypto/pkcs11/token.js';
import { dataKeyStream, DataKeyIssued } from '../streams/dataKey.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer, fetchAuthorizationRequest } from './support/wallet/presentation.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, PID_CLAIMS, verifyIssuedCredential } from './support/wallet/issuanceChecks.js';
import { PRE_AUTHORIZED } from '../wallet/issuance.js';
import { parseRequestUri } from '../wallet/presentation.js';
import { TEST_KEK_FILE } from './support/kek.js';
import { createLogger } from '../src/log.js';
import { createTestToken, generateConnectorKeys, pkcs11Env, softHsmMissing, TEST_PIN, TOKEN_DIR } from './support/softhsm.js';

const OTHER_PIN = '161803';

if (softHsmMissing) {
  test.skip(`KEY_STORE=pkcs11 flows against SoftHSM2 (skipped because it needs SoftHSM2, which .ci/run installs: ${softHsmMissing})`, (t) => t.pass());
} else {
  let token: TokenOptions;
  let dir: string;
  let h: VerificationHarness;
  const logLines: string[] = [];

  test.before(async () => {
    token = await createTestToken('flows-test');
    dir = await mkdtemp(join(tmpdir(), 'connector-pkcs11-flows-'));
    await generateConnectorKeys(token, dir);
    h = await startVerificationHarness(pkcs11Env(token, dir), { log: createLogger({ level: 'debug', write: (line) => logLines.push(line) }) });
  });

  test.after.always(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const leafPem = async (file: string): Promise<string> => certificatesFromPem(await readFile(join(dir, file), 'utf8'))[0]!.toString('pem');
  const eventCount = async (): Promise<number> => (await h.service.service.store.readAll()).length;
  const readiness = async () => {
    const response = await h.service.management('/health/ready', { key: null });
    return { status: response.status, body: (await response.json()) as { checks: { name: string; ok: boolean; detail?: string }[] } };
  };

  /** Closes every session of the token (the connector's too) after changing its PIN: the connector cannot log in again. */
  const takeTokenAway = async (from: string, to: string): Promise<void> => {
    const other = openToken({ ...token, pin: from });
    const { module, slot } = other;
    await other.withSession(async (session) => module.C_SetPIN(session.handle, from, to));
    module.C_CloseAllSessions(slot);
    other.close();
  };

  test.serial('with KEY_STORE=pkcs11 a verification completes: the request object is signed in the token (jose verifies it with the access certificate)', async (t) => {
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
    const requestUri = new URL(parseRequestUri(created.cross_device_request_uri).requestUri);
    const fetched = await h.service.wallet(`${requestUri.pathname}${requestUri.search}`);
    const jws = await fetched.text();
    const header = decodeProtectedHeader(jws);
    t.is(header.alg, 'ES256');
    const leaf = await leafPem('access-chain.pem');
    t.deepEqual(header.x5c?.[0], certificatesFromPem(leaf)[0]!.toString('base64'));
    const verified = await compactVerify(jws, await importX509(leaf, 'ES256'));
    t.is(JSON.parse(Buffer.from(verified.payload).toString())['state'], created.state);
    const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
    t.is(posted.status, 200);
    t.is((await h.callback(created.state))['status'], 'FULFILLED');
  });

  test.serial('with KEY_STORE=pkcs11 an issuance completes: the SD-JWT VC and its status list are signed in the token (@sd-jwt/sd-jwt-vc verifies both)', async (t) => {
    const created = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const w = await IssuanceWallet.create(h.service.config.publicUrl, h.service.service.publicListenUrl);
    const credential = await w.receive(created.credential_offer_uri, created.tx_code_value);
    const verified = await verifyIssuedCredential(h.service, credential);
    t.is(verified.leaf.toString('pem'), await leafPem('issuer-chain.pem'));
    t.is(verified.claims['family_name'], PID_CLAIMS.family_name);
  });

  test.serial('no private key and no key-encryption key on disk: DATA_DIR and the configuration files hold none', async (t) => {
    const files: string[] = [];
    const walk = async (at: string): Promise<void> => {
      for (const entry of await readdir(at, { withFileTypes: true })) {
        const path = join(at, entry.name);
        if (entry.isDirectory()) await walk(path);
        else files.push(path);
      }
    };
    await walk(h.service.dataDir);
    await walk(dir);
    t.true(files.length > 3);
    for (const file of files) {
      const text = (await readFile(file)).toString('latin1');
      t.false(/PRIVATE KEY/.test(text), file);
      t.false(file.endsWith('data-key-encryption.key') || file.endsWith('key.pem'), file);
    }
    t.false(files.some((f) => f.includes('-identity')), 'no development identity was made');
    // The KEK file tests use for the file store was never made.
    await t.throwsAsync(stat(TEST_KEK_FILE), { code: 'ENOENT' });
  });

  test.serial('a token taken away: operations needing keys fail cleanly (503 on the management API, server_error on wallet routes), nothing appended, readiness says keys; back, it recovers by itself', async (t) => {
    // Prepared while the token answers: a request to fetch, and an access token and key proof for the credential endpoint.
    const pending = await h.request({ dcql_query: pidQuery() });
    const created = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const w = await IssuanceWallet.create(h.service.config.publicUrl, h.service.service.publicListenUrl);
    const offered = await w.resolveOffer(created.credential_offer_uri);
    const tokenAnswer = await w.token(offered.body.grants[PRE_AUTHORIZED]!['pre-authorized_code']);
    t.is(tokenAnswer.status, 200);
    const accessToken = String(tokenAnswer.body['access_token']);
    const proof = await w.keyProof({ nonce: await w.nonce() });
    t.is((await readiness()).status, 200);

    await takeTokenAway(TEST_PIN, OTHER_PIN);
    const before = await eventCount();
    const createVerification = await h.create({ dcql_query: pidQuery() });
    t.is(createVerification.status, 503);
    t.like(createVerification.json, { type: '/problems/keys-unavailable', status: 503 });
    const createIssuance = await h.service.management('/offers', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS }) });
    t.is(createIssuance.status, 503);
    const requestObject = await fetchAuthorizationRequest(h.endpoints, pending.cross_device_request_uri).then(() => 'fetched', (err: Error) => err.message);
    t.regex(requestObject, /answered 500: .*"error":"server_error".*keys are unavailable/);
    const credential = await w.credential(accessToken, { credential_configuration_id: 'pid', proofs: { jwt: [proof] } });
    t.is(credential.status, 500);
    t.like(credential.body, { error: 'server_error', error_description: 'The keys are unavailable; nothing was changed. Retry later.' });
    t.is(await eventCount(), before, `nothing appended: ${JSON.stringify((await h.service.service.store.readAll()).slice(before).map((e) => [e.streamId, e.type]))}`);
    const notReady = await readiness();
    t.is(notReady.status, 503);
    t.like(notReady.body.checks.find((c) => c.name === 'keys'), { ok: false });
    // What needs no key still answers.
    t.is((await h.service.management(`/offers/${created.offer_id}`)).status, 200);
    t.is((await w.configuration('pid'))['format'], 'dc+sd-jwt');

    await takeTokenAway(OTHER_PIN, TEST_PIN);
    t.is((await readiness()).status, 200);
    t.is((await h.create({ dcql_query: pidQuery() })).status, 201);
    const fetched = await fetchAuthorizationRequest(h.endpoints, pending.cross_device_request_uri);
    t.is(fetched.payload['state'], pending.state);
    const issued = await w.credential(accessToken, { credential_configuration_id: 'pid', proofs: { jwt: [await w.keyProof({ nonce: await w.nonce() })] } });
    t.is(issued.status, 200, JSON.stringify(issued.body));
  });

  test.serial('the PIN is in no log line, also while the token is away', async (t) => {
    t.true(logLines.some((line) => line.includes('keys in the PKCS#11 token')));
    t.true(logLines.length > 10);
    for (const line of logLines) t.false(line.includes(TEST_PIN) || line.includes(OTHER_PIN), line);
  });

  test.serial('with the token\'s store removed after a flow, the sealed data stays unreadable: no token KEK or file KEK opens the data key', async (t) => {
    // An offer not yet redeemed: its claims are sealed under its data key, wrapped by the token's KEK.
    const { offer_id: offerId } = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const read = await h.service.service.store.readStream(dataKeyStream(offerId));
    if (read._tag !== 'Found') return t.fail('the offer has no data key');
    const decoded = DataKeyIssued.decode({ type: read.events[0]!.type, data: read.events[0]!.data });
    if (decoded._tag !== 'Right') return t.fail('not a DataKeyIssued event');
    const { wrappedKey } = decoded.right.data;
    // While the token is there, it opens.
    const present = openToken(token);
    try {
      t.is((await tokenKek(present, 'kek').unwrap(wrappedKey, `datakey/${offerId}`)).length, 32);
    } finally {
      present.close();
    }
    await h.close();
    h = undefined as never;
    await rm(TOKEN_DIR, { recursive: true, force: true });
    // A token made anew with the same label and key labels: other keys, the same names.
    const again = await createTestToken('flows-test');
    const otherDir = await mkdtemp(join(tmpdir(), 'connector-pkcs11-again-'));
    await generateConnectorKeys(again, otherDir);
    const opened = openToken(again);
    try {
      await t.throwsAsync(tokenKek(opened, 'kek').unwrap(wrappedKey, `datakey/${offerId}`));
    } finally {
      opened.close();
    }
    await t.throwsAsync(fileKek(Buffer.alloc(32)).unwrap(wrappedKey, `datakey/${offerId}`));
    await rm(otherDir, { recursive: true, force: true });
  });
}
