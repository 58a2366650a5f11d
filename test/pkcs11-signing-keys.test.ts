// Tenants' signing keys with KEY_STORE=pkcs11 against SoftHSM2: made inside the token (private,
// sensitive, not extractable) under a label derived from the tenant and the key id, the CSR
// signed there, the port's signatures made there; an erasure destroys the token objects.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import test from 'ava';
import { EC_P256, certificatesFromPem } from '../src/crypto/certificates.js';
import { findKey } from '../src/crypto/pkcs11/keys.js';
import { tenantKeyLabel } from '../src/crypto/pkcs11/tenantKeys.js';
import { openToken, type TokenOptions } from '../src/crypto/pkcs11/token.js';
import { x509 } from '../src/crypto/x509.js';
import { destroyTenantSigningKeys } from '../src/resources/tenantErasure.js';
import { createTestToken, generateConnectorKeys, pkcs11Env, softHsmMissing } from './support/softhsm.js';
import { startTestService, type TestService } from './support/service.js';

if (softHsmMissing) {
  test.skip(`tenants' signing keys in a PKCS#11 token (skipped because it needs SoftHSM2, which .ci/run installs: ${softHsmMissing})`, (t) => t.pass());
} else {
  let token: TokenOptions;
  let dir: string;
  let s: TestService;

  test.before(async () => {
    token = await createTestToken('tenant-keys-test');
    dir = await mkdtemp(join(tmpdir(), 'connector-pkcs11-tenant-keys-'));
    await generateConnectorKeys(token, dir);
    s = await startTestService({ env: pkcs11Env(token, dir) });
  });

  test.after.always(async () => {
    await s?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  /** The private key object's CKA_SENSITIVE, CKA_EXTRACTABLE and CKA_PRIVATE, or undefined when the token has none by this label. */
  const privateKeyAttributes = async (label: string) => {
    const other = openToken(token);
    try {
      return await other.withSession(async (session) => {
        const handle = findKey(other, session, label, 'private');
        if (!handle) return undefined;
        const { pkcs11 } = other;
        const [sensitive, extractable, isPrivate] = other.module.C_GetAttributeValue(session.handle, handle, [
          { type: pkcs11.CKA_SENSITIVE },
          { type: pkcs11.CKA_EXTRACTABLE },
          { type: pkcs11.CKA_PRIVATE },
        ]);
        const flag = (a: { value?: unknown } | undefined) => Buffer.from(a?.value as Buffer)[0] === 1;
        return { sensitive: flag(sensitive), extractable: flag(extractable), private: flag(isPrivate) };
      });
    } finally {
      other.close();
    }
  };

  test.serial('a key made in the token: sensitive, not extractable, labelled from the tenant and key id; its CSR, signed in the token, verifies; the active key signs in the token; an erasure destroys the token objects', async (t) => {
    const tenantId = ((await (await s.management('/tenant')).json()) as { tenant_id: string }).tenant_id;
    const response = await s.management('/signing-keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'issuer', development_chain: true }) });
    t.is(response.status, 201);
    const created = (await response.json()) as { id: string; etag: string; data: Record<string, unknown> };
    const label = tenantKeyLabel(tenantId, created.id);
    t.like(created.data, { key_store: 'pkcs11', token_label: label, state: 'ready' });
    t.deepEqual(await privateKeyAttributes(label), { sensitive: true, extractable: false, private: true });

    const csr = new x509.Pkcs10CertificateRequest(String(created.data['csr']));
    t.true(await csr.verify(), 'the CSR is signed by the token key');

    const activated = await s.management(`/signing-keys/${created.id}/activate`, { method: 'POST', headers: { 'If-Match': created.etag } });
    t.is(activated.status, 200);
    const identity = await s.service.context.tenantKeys.active(tenantId, 'issuer');
    if (!identity) throw new Error('no active key');
    const data = Buffer.from('signed in the token');
    const [leaf] = certificatesFromPem(String(created.data['certificate_chain']));
    t.true(await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, await leaf!.publicKey.export(EC_P256, ['verify']), await identity.signer.sign(data), data));

    const { keys, dataKeys } = s.service.context;
    t.is(await destroyTenantSigningKeys({ db: s.service.runner.db, store: s.service.store, metadata: { actor: 'test' }, tenantKeys: keys.tenantKeys, dataKeys, now: () => new Date() }, tenantId), 1);
    t.is(await privateKeyAttributes(label), undefined, 'the private key is gone from the token');
  });
}
