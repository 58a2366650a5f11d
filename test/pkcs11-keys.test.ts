// Keys in a PKCS#11 token (SoftHSM2, a temporary token per run): `ops keys generate` and `list`,
// the attributes of the keys it makes, the CSR and development chain for a token key, signatures
// made in the token verified by jose and the mdoc verification, the token KEK, and the start
// checks: one line per problem, never the PIN.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { compactVerify, importX509 } from 'jose';
import { openKeyStore } from '../src/app/keyStore.js';
import { certificatesFromPem, certificatesToPem } from '../src/crypto/certificates.js';
import { generateChain } from '../src/crypto/signingIdentity.js';
import { signCompactJws } from '../src/crypto/jws.js';
import { findKey, listKeys } from '../src/crypto/pkcs11/keys.js';
import { openToken, TokenProblem, type TokenOptions } from '../src/crypto/pkcs11/token.js';
import { x509 } from '../src/crypto/x509.js';
import { encodeCbor } from '../src/mdoc/cbor.js';
import { parseCoseSign1, publicKeyOf, signCoseSign1, verifyCoseSign1 } from '../src/mdoc/cose.js';
import { silentLogger } from '../src/log.js';
import { generateTokenKey, KeyRefused, listTokenKeys } from '../ops/keys.js';
import { rightOf } from './support/either.js';
import { opsScript, runScript } from './support/processes.js';
import { testConfig } from './support/service.js';
import { createTestToken, generateConnectorKeys, pkcs11Env, softHsmMissing, TEST_PIN } from './support/softhsm.js';

const WRONG_PIN = '999999';

if (softHsmMissing) {
  test.skip(`PKCS#11 keys against SoftHSM2 (skipped because it needs SoftHSM2, which .ci/run installs: ${softHsmMissing})`, (t) => t.pass());
} else {
  let token: TokenOptions;
  let dir: string;

  test.before(async () => {
    token = await createTestToken('keys-test');
    dir = await mkdtemp(join(tmpdir(), 'connector-pkcs11-'));
    await generateConnectorKeys(token, dir);
  });

  const storeConfig = (env: Record<string, string> = {}) => testConfig(join(dir, 'data'), { ...pkcs11Env(token, dir), ...env });

  /** The start's error lines, each checked not to hold the PIN. */
  const startProblems = async (t: import('ava').ExecutionContext, env: Record<string, string>): Promise<string[]> => {
    const err = await t.throwsAsync(openKeyStore(storeConfig(env), silentLogger));
    t.true(err instanceof TokenProblem, err?.message);
    const lines = err?.message.split('\n') ?? [];
    for (const line of lines) t.false(line.includes(TEST_PIN) || line.includes(WRONG_PIN), line);
    return lines;
  };

  test.serial('ops keys generate makes sensitive, non-extractable keys with the role recorded; list shows label, type and role only', async (t) => {
    const keys = await listTokenKeys(token);
    t.deepEqual(
      keys.filter((k) => ['access', 'issuer', 'kek'].includes(k.label)).sort((a, b) => `${a.label}${a.type}`.localeCompare(`${b.label}${b.type}`)),
      [
        { label: 'access', type: 'ec-p256-private', role: 'access' },
        { label: 'access', type: 'ec-p256-public', role: 'access' },
        { label: 'issuer', type: 'ec-p256-private', role: 'issuer' },
        { label: 'issuer', type: 'ec-p256-public', role: 'issuer' },
        { label: 'kek', type: 'aes-256', role: 'kek' },
      ],
    );
    const opened = openToken(token);
    try {
      await opened.withSession(async (session) => {
        const { pkcs11, module } = opened;
        for (const [label, kind] of [['access', 'private'], ['issuer', 'private'], ['kek', 'secret']] as const) {
          const handle = findKey(opened, session, label, kind)!;
          const [sensitive, extractable, alwaysSensitive] = module.C_GetAttributeValue(session.handle, handle, [
            { type: pkcs11.CKA_SENSITIVE },
            { type: pkcs11.CKA_EXTRACTABLE },
            { type: pkcs11.CKA_ALWAYS_SENSITIVE },
          ]);
          t.is((sensitive?.value as Buffer)[0], 1, `${label} sensitive`);
          t.is((extractable?.value as Buffer)[0], 0, `${label} not extractable`);
          t.is((alwaysSensitive?.value as Buffer)[0], 1, `${label} always sensitive`);
          // The value itself cannot be read out.
          t.throws(() => module.C_GetAttributeValue(session.handle, handle, [{ type: pkcs11.CKA_VALUE }]));
        }
        t.is(listKeys(opened, session).length, keys.length);
      });
    } finally {
      opened.close();
    }
  });

  test.serial('ops keys generate refuses a label the token already holds, and --csr/--dev-chain for the KEK', async (t) => {
    await t.throwsAsync(generateTokenKey(token, { role: 'issuer', label: 'access', commonName: 'x', country: 'DE' }), { instanceOf: KeyRefused, message: /already holds an object labelled "access"/ });
    await t.throwsAsync(generateTokenKey(token, { role: 'kek', label: 'kek-2', csr: join(dir, 'kek.csr'), commonName: 'x', country: 'DE' }), { instanceOf: KeyRefused });
    t.false((await listTokenKeys(token)).some((k) => k.label === 'kek-2'));
  });

  test.serial('--csr writes a PKCS#10 request signed by the token key; --dev-chain a chain whose leaf holds that key, the CA validating it', async (t) => {
    const made = await generateTokenKey(token, { role: 'access', label: 'csr-access', csr: join(dir, 'access.csr'), devChain: join(dir, 'csr-access-chain.pem'), commonName: 'rp.example', country: 'DE' });
    t.regex(made.client_id ?? '', /^x509_hash:[A-Za-z0-9_-]{43}$/);
    const csr = new x509.Pkcs10CertificateRequest(await readFile(join(dir, 'access.csr'), 'utf8'));
    t.true(await csr.verify());
    t.is(csr.subject, 'C=DE, CN=rp.example');
    const [leaf, ca] = certificatesFromPem(await readFile(join(dir, 'csr-access-chain.pem'), 'utf8'));
    t.deepEqual(Buffer.from(leaf!.publicKey.rawData), Buffer.from(csr.publicKey.rawData));
    t.true(await leaf!.verify({ publicKey: ca!.publicKey, signatureOnly: true }));
    t.true(await ca!.isSelfSigned());
    // Nothing is overwritten: a second key cannot write over the files.
    await t.throwsAsync(generateTokenKey(token, { role: 'access', label: 'csr-access-2', csr: join(dir, 'access.csr'), commonName: 'rp.example', country: 'DE' }), { code: 'EEXIST' });
  });

  test.serial('signatures made in the token: a compact JWS jose verifies with the certificate, a COSE_Sign1 the mdoc verification accepts', async (t) => {
    const keys = await openKeyStore(storeConfig(), silentLogger);
    try {
      const identity = await keys.signingIdentity('issuer', undefined as never);
      const jws = await signCompactJws(identity.signer, { typ: 'example+jwt', x5c: [...identity.x5c] }, { hello: 'token' });
      const leafPem = identity.chain[0]!.toString('pem');
      const verified = await compactVerify(jws, await importX509(leafPem, 'ES256'));
      t.deepEqual(JSON.parse(Buffer.from(verified.payload).toString()), { hello: 'token' });
      const payload = encodeCbor(new Map([['a', 1]]));
      const sign1 = rightOf(parseCoseSign1(await signCoseSign1(payload, identity.signer), 'sign1'));
      t.true(verifyCoseSign1(sign1, publicKeyOf(identity.publicJwk)));
      t.false(verifyCoseSign1(sign1, publicKeyOf(identity.publicJwk), encodeCbor(new Map([['a', 2]]))));
      // Signing runs in parallel over the session pool.
      const many = await Promise.all(Array.from({ length: 12 }, (_, i) => signCompactJws(identity.signer, {}, { i })));
      for (const one of many) await t.notThrowsAsync(compactVerify(one, await importX509(leafPem, 'ES256')));
    } finally {
      keys.close();
    }
  });

  test.serial('the token KEK wraps and unwraps data keys (AES-GCM, bound to the owner); another owner or a changed value fails', async (t) => {
    const keys = await openKeyStore(storeConfig(), silentLogger);
    try {
      const dataKey = Buffer.alloc(32, 7);
      const wrapped = await keys.kek.wrap(dataKey, 'datakey/owner-1');
      t.is(wrapped.alg, 'A256GCM');
      t.false(Buffer.from(wrapped.ciphertext, 'base64url').equals(dataKey));
      t.deepEqual(await keys.kek.unwrap(wrapped, 'datakey/owner-1'), dataKey);
      await t.throwsAsync(keys.kek.unwrap(wrapped, 'datakey/owner-2'));
      await t.throwsAsync(keys.kek.unwrap({ ...wrapped, tag: Buffer.alloc(16).toString('base64url') }, 'datakey/owner-1'));
      // The token still answers afterwards: the failed sessions were replaced.
      t.deepEqual(await keys.kek.unwrap(wrapped, 'datakey/owner-1'), dataKey);
      t.is(keys.derivationRoot.length, 32);
      const again = await openKeyStore(storeConfig(), silentLogger);
      t.deepEqual(again.derivationRoot, keys.derivationRoot);
      again.close();
    } finally {
      keys.close();
    }
  });

  test.serial("ops keys generate and list run with the service's environment before its certificates exist: only PKCS11_* is read", async (t) => {
    const out = await mkdtemp(join(tmpdir(), 'connector-pkcs11-ops-'));
    // The service's environment, its chains not written yet: named (a compose file), or not yet set.
    const service: Record<string, string> = { ...pkcs11Env(token, out, 'ops-'), SOFTHSM2_CONF: process.env['SOFTHSM2_CONF'] ?? '', DATA_DIR: join(out, 'data') };
    const accessChain = service['ACCESS_CERTIFICATE_FILE'] ?? '';
    const withoutCertificates = Object.fromEntries(Object.entries(service).filter(([name]) => !name.endsWith('_CERTIFICATE_FILE')));
    const keys = (env: Record<string, string>, ...args: string[]) => runScript(opsScript, ['keys', ...args, '--json'], env, { timeoutMs: 60_000 });
    const made = await keys(service, 'generate', '--role', 'access', '--label', 'ops-access', '--dev-chain', accessChain);
    t.is(made.code, 0, made.stderr);
    t.like(JSON.parse(made.stdout), { label: 'ops-access', role: 'access', dev_chain: accessChain });
    const kek = await keys(withoutCertificates, 'generate', '--role', 'kek', '--label', 'ops-kek');
    t.is(kek.code, 0, kek.stderr);
    const listed = await keys({ ...withoutCertificates, CALLBACK_URL: 'not a url', PUBLIC_PORT: 'none' }, 'list');
    t.is(listed.code, 0, listed.stderr);
    const labels = listed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { label: string }).label);
    t.true(labels.includes('ops-access') && labels.includes('ops-kek'), labels.join(', '));
    // The PKCS11_* variables are still checked, one line each, never the PIN.
    const bad = await keys({ ...service, PKCS11_SLOT: 'one' }, 'list');
    t.is(bad.code, 1);
    t.is(bad.stderr, 'configuration error: PKCS11_SLOT: expected an integer 0-4294967295, got "one"\n');
    for (const run of [made, kek, listed, bad]) t.false(run.stdout.includes(TEST_PIN) || run.stderr.includes(TEST_PIN));
  });

  test.serial('start checks: a wrong PIN, an unknown token, a missing module, each one line without the PIN', async (t) => {
    t.deepEqual(await startProblems(t, { PKCS11_PIN: WRONG_PIN }), ['PKCS11_PIN: the token refuses the PIN']);
    t.deepEqual(await startProblems(t, { PKCS11_TOKEN_LABEL: 'no-such-token' }), [
      `PKCS11_TOKEN_LABEL: no token labelled "no-such-token" in ${token.module} (tokens: "keys-test")`,
    ]);
    const [missingModule] = await startProblems(t, { PKCS11_MODULE: join(dir, 'missing.so') });
    t.regex(missingModule ?? '', /^PKCS11_MODULE: .*missing\.so cannot be loaded as a PKCS#11 library/);
    await writeFile(join(dir, 'pin'), `${WRONG_PIN}\n`);
    t.deepEqual(await startProblems(t, { PKCS11_PIN: '', PKCS11_PIN_FILE: join(dir, 'pin') }), ['PKCS11_PIN: the token refuses the PIN']);
  });

  test.serial('start checks: missing keys and a certificate not holding the token key, one line each', async (t) => {
    const other = await generateChain('other');
    await writeFile(join(dir, 'other-chain.pem'), certificatesToPem([other.leaf.certificate, other.ca.certificate]));
    t.deepEqual(await startProblems(t, { ACCESS_KEY_LABEL: 'nope', KEK_LABEL: 'gone', ISSUER_CERTIFICATE_FILE: join(dir, 'other-chain.pem') }), [
      'ACCESS_KEY_LABEL: no private key labelled "nope" in the token',
      'KEK_LABEL: no AES key labelled "gone" in the token',
      'ISSUER_CERTIFICATE_FILE: the leaf\'s public key is not the token key "issuer" (ISSUER_KEY_LABEL)',
    ]);
    // The access key given as the KEK: the wrong type of key.
    t.deepEqual(await startProblems(t, { KEK_LABEL: 'access' }), ['KEK_LABEL: no AES key labelled "access" in the token']);
    t.deepEqual(await startProblems(t, { ACCESS_CERTIFICATE_FILE: join(dir, 'absent.pem') }), [`ACCESS_CERTIFICATE_FILE: ${join(dir, 'absent.pem')} cannot be read (ENOENT)`]);
  });
}
