// The `signing-keys` kind end to end over HTTP on loopback, with real keys and certificates: a key
// made in the file store (sealed, never clear on disk) with a CSR for its role, certified by a CA
// of the test or by the deployment's development CA, activated (retiring the one it replaces),
// every refusal, and TenantSigningKeys answering the tenant's active key that signs.
import { verify, webcrypto } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { isLeft } from 'fp-ts/lib/Either.js';
import { openFor } from '../src/crypto/dataKeys.js';
import { decodeRecorded } from '../streams/event.js';
import { SIGNING_KEY_PRIVATE, signingKeyOwner, signingKeyStream, signingKey } from '../streams/signingKey.js';
import { certifyPublicKey, certificatesFromPem, certificatesToPem, createCertificateAuthority, DAY_MS, EC_P256, hostSubjectAltName, subjectAltNamesOf, type CertifiedKey } from '../src/crypto/certificates.js';
import { x509 } from '../src/crypto/x509.js';
import { destroyTenantSigningKeys } from '../src/resources/tenantErasure.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { tenantCredentialIssuer } from '../src/tenantIdentity/ports.js';
import { withTestService, type TestService } from './support/service.js';

type Envelope = { id: string; etag: string; revision: number; data: Record<string, unknown> };

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const makeKey = async (s: TestService, body: Record<string, unknown>, key?: string): Promise<Envelope> => {
  const response = await s.management('/signing-keys', { ...json(body), ...(key ? { key } : {}) });
  if (response.status !== 201) throw new Error(`POST /signing-keys: ${response.status} ${await response.text()}`);
  return (await response.json()) as Envelope;
};

const tenantOf = async (s: TestService): Promise<string> => ((await (await s.management('/tenant')).json()) as { tenant_id: string }).tenant_id;

const publicKeyOf = (envelope: Envelope) => webcrypto.subtle.importKey('jwk', envelope.data['public_jwk'] as webcrypto.JsonWebKey, EC_P256, true, ['verify']);

/** The subjectAltNames a CSR asks for. */
const csrNames = (csr: x509.Pkcs10CertificateRequest) =>
  [...csr.extensions]
    .filter((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension)
    .flatMap((e) => e.names.items.map((n) => ({ type: n.type, value: n.value })));

const testCa = (): Promise<CertifiedKey> => createCertificateAuthority({ commonName: 'Test CA', country: 'DE' });

/** A chain (leaf, CA) certifying `publicKey` with these names and validity. */
const chainFor = async (ca: CertifiedKey, publicKey: webcrypto.CryptoKey, options: { names?: { type: 'dns' | 'url'; value: string }[]; notBefore?: Date; notAfter?: Date } = {}): Promise<string> =>
  certificatesToPem([
    await certifyPublicKey(ca, { commonName: 'tenant key', country: 'DE', subjectAltNames: options.names ?? [], ...(options.notBefore ? { notBefore: options.notBefore } : {}), ...(options.notAfter ? { notAfter: options.notAfter } : {}) }, publicKey),
    ca.certificate,
  ]);

const putCertificate = (s: TestService, envelope: Pick<Envelope, 'id' | 'etag'>, chain: string) =>
  s.management(`/signing-keys/${envelope.id}/certificate`, { method: 'PUT', headers: { 'content-type': 'application/json', 'If-Match': envelope.etag }, body: JSON.stringify({ chain }) });

const activate = (s: TestService, envelope: Pick<Envelope, 'id' | 'etag'>) => s.management(`/signing-keys/${envelope.id}/activate`, { method: 'POST', headers: { 'If-Match': envelope.etag } });

const issuerNames = (s: TestService, tenantId: string) => {
  const issuer = tenantCredentialIssuer(s.config.publicUrl, tenantId);
  return [{ type: 'url' as const, value: issuer }, { type: 'dns' as const, value: new URL(issuer).hostname }];
};

test('an issuer key: 201 pending with its public JWK and a CSR it signed, naming the tenant\'s credential issuer (URI) and its host (DNS)', async (t) => {
  await withTestService(async (s) => {
    const tenantId = await tenantOf(s);
    const created = await makeKey(s, { role: 'issuer' });
    t.like(created, { revision: 1, kind: { name: 'signing-key', version: 1 }, data: { role: 'issuer', state: 'pending', key_store: 'file', certificate_chain: null } });
    const csr = new x509.Pkcs10CertificateRequest(String(created.data['csr']));
    t.true(await csr.verify(), 'the CSR is signed by its key');
    const csrJwk = await webcrypto.subtle.exportKey('jwk', await csr.publicKey.export(EC_P256, ['verify']));
    const jwk = created.data['public_jwk'] as { x: string; y: string };
    t.deepEqual([csrJwk.x, csrJwk.y], [jwk.x, jwk.y], 'the CSR is for the key');
    const names = csrNames(csr);
    t.deepEqual(names, issuerNames(s, tenantId));
    const read = await s.management(`/signing-keys/${created.id}`);
    t.is(read.status, 200);
    t.is(read.headers.get('etag'), created.etag);
  });
});

test('an access key\'s CSR names PUBLIC_URL\'s host', async (t) => {
  await withTestService(async (s) => {
    const created = await makeKey(s, { role: 'access' });
    const csr = new x509.Pkcs10CertificateRequest(String(created.data['csr']));
    t.true(await csr.verify());
    const names = csrNames(csr);
    t.deepEqual(names, [hostSubjectAltName(s.config.publicUrl)]);
  });
});

test('a role other than access or issuer, or no role, is 400 and makes nothing', async (t) => {
  await withTestService(async (s) => {
    for (const body of [{ role: 'kek' }, {}, { role: 'issuer', development_chain: 'yes' }]) {
      const response = await s.management('/signing-keys', json(body));
      t.is(response.status, 400, JSON.stringify(body));
      t.is(response.headers.get('content-type'), 'application/problem+json');
    }
    t.deepEqual(((await (await s.management('/signing-keys')).json()) as { items: unknown[] }).items, []);
  });
});

test('development_chain: ready at once, certified by the deployment\'s development CA (kept in DATA_DIR) with the role\'s names', async (t) => {
  await withTestService(async (s) => {
    const tenantId = await tenantOf(s);
    const created = await makeKey(s, { role: 'issuer', development_chain: true });
    t.like(created, { data: { state: 'ready' } });
    const chain = certificatesFromPem(String(created.data['certificate_chain']));
    const [leaf, ca] = chain;
    if (!leaf || !ca) throw new Error('chain');
    t.true(await leaf.verify({ publicKey: ca.publicKey }), 'the leaf is signed by the CA');
    const caPem = await readFile(join(s.dataDir, 'development-ca', 'ca.pem'), 'utf8');
    t.is(certificatesFromPem(caPem)[0]?.serialNumber, ca.serialNumber, 'by the deployment\'s CA');
    t.deepEqual(subjectAltNamesOf(leaf), issuerNames(s, tenantId));
    t.is(created.data['not_after'], leaf.notAfter.toISOString());
    const another = await makeKey(s, { role: 'access', development_chain: true });
    t.is(certificatesFromPem(String(another.data['certificate_chain']))[1]?.serialNumber, ca.serialNumber, 'the same CA for every key');
  });
});

test('development_chain where ALLOW_DEVELOPMENT_CHAINS=false: 403 problem, nothing made; without it the key is made', async (t) => {
  await withTestService(
    async (s) => {
      const refused = await s.management('/signing-keys', json({ role: 'issuer', development_chain: true }));
      t.is(refused.status, 403);
      t.regex(((await refused.json()) as { detail: string }).detail, /ALLOW_DEVELOPMENT_CHAINS/);
      t.deepEqual(((await (await s.management('/signing-keys')).json()) as { items: unknown[] }).items, []);
      t.like(await makeKey(s, { role: 'issuer' }), { data: { state: 'pending' } });
    },
    { env: { ALLOW_DEVELOPMENT_CHAINS: 'false' } },
  );
});

test('a certificate from the tenant\'s CA: ready, its chain and validity shown; refusals name the rule and change nothing', async (t) => {
  await withTestService(async (s) => {
    const tenantId = await tenantOf(s);
    const ca = await testCa();
    const created = await makeKey(s, { role: 'issuer' });
    const publicKey = await publicKeyOf(created);
    const refusals: [string, string, RegExp][] = [
      ['another key', await chainFor(ca, (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])).publicKey, { names: issuerNames(s, tenantId) }), /leaf_key/],
      ['expired', await chainFor(ca, publicKey, { names: issuerNames(s, tenantId), notBefore: new Date(Date.now() - 3 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) }), /expired/],
      ['not yet valid', await chainFor(ca, publicKey, { names: issuerNames(s, tenantId), notBefore: new Date(Date.now() + DAY_MS), notAfter: new Date(Date.now() + 3 * DAY_MS) }), /not_yet_valid/],
      ['no issuer name', await chainFor(ca, publicKey, { names: [{ type: 'dns', value: 'elsewhere.example' }] }), /issuer_name/],
      ['another tenant\'s issuer', await chainFor(ca, publicKey, { names: [{ type: 'url', value: tenantCredentialIssuer('https://elsewhere.example', tenantId) }] }), /issuer_name/],
      ['not PEM', 'hello', /PEM/],
      ['a chain out of order', await chainFor(ca, publicKey, { names: issuerNames(s, tenantId) }).then((pem) => certificatesToPem([certificatesFromPem(pem)[0]!, certificatesFromPem(pem)[0]!])), /chain/],
    ];
    for (const [why, chain, rule] of refusals) {
      const response = await putCertificate(s, created, chain);
      t.is(response.status, 400, why);
      const problem = (await response.json()) as { detail: string; errors: { location: string; message: string }[] };
      t.is(problem.errors[0]?.location, 'body.chain', why);
      t.regex(problem.errors[0]?.message ?? '', rule, why);
    }
    const unchanged = (await (await s.management(`/signing-keys/${created.id}`)).json()) as Envelope;
    t.is(unchanged.revision, 1, 'nothing was recorded');

    const chain = await chainFor(ca, publicKey, { names: issuerNames(s, tenantId) });
    const certified = await putCertificate(s, created, chain);
    t.is(certified.status, 200);
    const body = (await certified.json()) as Envelope;
    const [leaf] = certificatesFromPem(chain);
    t.like(body, { revision: 2, data: { state: 'ready', not_before: leaf?.notBefore.toISOString(), not_after: leaf?.notAfter.toISOString() } });
    t.is(certificatesFromPem(String(body.data['certificate_chain']))[0]?.serialNumber, leaf?.serialNumber);

    const stale = await putCertificate(s, created, chain);
    t.is(stale.status, 412, 'the etag of revision 1 is stale');
    t.is((await s.management(`/signing-keys/${created.id}/certificate`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chain }) })).status, 428);
    const history = (await (await s.management(`/signing-keys/${created.id}/history`)).json()) as { items: Envelope[] };
    t.deepEqual(history.items.map((e) => e.data['state']), ['pending', 'ready']);
  });
});

test('an access key\'s certificate needs no issuer name', async (t) => {
  await withTestService(async (s) => {
    const created = await makeKey(s, { role: 'access' });
    const response = await putCertificate(s, created, await chainFor(await testCa(), await publicKeyOf(created), { names: [{ type: 'dns', value: 'verifier.example' }] }));
    t.is(response.status, 200);
  });
});

test('activating a pending key is 409 saying it has no certificate; a stale If-Match is 412', async (t) => {
  await withTestService(async (s) => {
    const created = await makeKey(s, { role: 'issuer' });
    const response = await activate(s, created);
    t.is(response.status, 409);
    t.regex(((await response.json()) as { detail: string }).detail, /pending.*no certificate/);
    const ready = await makeKey(s, { role: 'access', development_chain: true });
    t.is((await activate(s, { id: ready.id, etag: '"stale"' })).status, 412);
    t.is((await s.management(`/signing-keys/${ready.id}/activate`, { method: 'POST' })).status, 428);
  });
});

test('activation: the key becomes the tenant\'s active key of its role, the one it replaces is retired (its own revision, still readable), and a retired key never becomes active again', async (t) => {
  await withTestService(async (s) => {
    const tenantId = await tenantOf(s);
    const first = await makeKey(s, { role: 'issuer', development_chain: true });
    const access = await makeKey(s, { role: 'access', development_chain: true });
    const activeFirst = (await (await activate(s, first)).json()) as Envelope;
    t.like(activeFirst, { revision: 2, data: { state: 'active' } });
    t.like(await (await activate(s, access)).json(), { data: { state: 'active' } });

    const second = await makeKey(s, { role: 'issuer', development_chain: true });
    const activated = await activate(s, second);
    t.is(activated.status, 200);
    t.like(await activated.json(), { data: { state: 'active' } });

    const retired = (await (await s.management(`/signing-keys/${first.id}`)).json()) as Envelope;
    t.like(retired, { revision: 3, data: { state: 'retired', replaced_by: second.id } });
    t.truthy(retired.data['certificate_chain'], 'a retired key stays readable with its chain');
    const history = (await (await s.management(`/signing-keys/${first.id}/history`)).json()) as { items: Envelope[] };
    t.deepEqual(history.items.map((e) => e.data['state']), ['ready', 'active', 'retired']);
    t.like(await (await s.management(`/signing-keys/${access.id}`)).json(), { data: { state: 'active' } }, 'the other role\'s key is not touched');

    const activeSecond = (await (await s.management(`/signing-keys/${second.id}`)).json()) as Envelope;
    const deleteActive = await s.management(`/signing-keys/${second.id}`, { method: 'DELETE', headers: { 'If-Match': activeSecond.etag } });
    t.is(deleteActive.status, 409);
    t.regex(((await deleteActive.json()) as { detail: string }).detail, /active key is not deleted/);

    const again = await activate(s, retired);
    t.is(again.status, 409);
    t.regex(((await again.json()) as { detail: string }).detail, /retired/);

    // The port answers the second key, whose signature verifies with its certificate's key.
    const identity = await s.service.context.tenantKeys.active(tenantId, 'issuer');
    if (!identity) throw new Error('no active issuer key');
    const [leaf] = certificatesFromPem(String((await (await s.management(`/signing-keys/${second.id}`)).json() as Envelope).data['certificate_chain']));
    t.is(identity.chain[0]?.serialNumber, leaf?.serialNumber);
    const data = Buffer.from('signed by the tenant');
    const signature = await identity.signer.sign(data);
    const leafKey = await leaf!.publicKey.export(EC_P256, ['verify']);
    t.true(await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, leafKey, signature, data));
    t.is(identity.x5c.length, 1, 'x5c without the self-signed CA');
    t.is(await s.service.context.tenantKeys.active(tenantId, 'issuer'), identity, 'kept while the key does not change');
  });
});

test('TenantSigningKeys: a tenant without an active key of a role has none; a renewed certificate of the active key is used at once', async (t) => {
  await withTestService(async (s) => {
    const tenantId = await tenantOf(s);
    t.is(await s.service.context.tenantKeys.active(tenantId, 'issuer'), undefined);
    const ready = await makeKey(s, { role: 'issuer', development_chain: true });
    t.is(await s.service.context.tenantKeys.active(tenantId, 'issuer'), undefined, 'ready is not active');
    const active = (await (await activate(s, ready)).json()) as Envelope;
    t.truthy(await s.service.context.tenantKeys.active(tenantId, 'issuer'));
    t.is(await s.service.context.tenantKeys.active(tenantId, 'access'), undefined);
    const chain = await chainFor(await testCa(), await publicKeyOf(active), { names: issuerNames(s, tenantId) });
    t.is((await putCertificate(s, active, chain)).status, 200);
    const identity = await s.service.context.tenantKeys.active(tenantId, 'issuer');
    t.is(identity?.chain[0]?.serialNumber, certificatesFromPem(chain)[0]?.serialNumber);
    const data = Buffer.from('x');
    t.true(verify('sha256', data, { key: Buffer.from(identity!.chain[0]!.publicKey.rawData), format: 'der', type: 'spki', dsaEncoding: 'ieee-p1363' }, await identity!.signer.sign(data)));
  });
});

test('another tenant\'s signing key is 404 on every route, and its keys are not the other\'s', async (t) => {
  await withTestService(async (s) => {
    const mine = await makeKey(s, { role: 'issuer', development_chain: true });
    const other = await createTenant(s.service.store, { name: 'other' }, { actor: 'test' });
    if (isLeft(other)) throw new Error('tenant');
    const otherKey = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['admin'], expiration: null }, { actor: 'test' });
    if (isLeft(otherKey)) throw new Error('key');
    await s.service.runner.waitFor(otherKey.right.position, 5000);
    const key = otherKey.right.secret;
    t.is((await s.management(`/signing-keys/${mine.id}`, { key })).status, 404);
    t.is((await s.management(`/signing-keys/${mine.id}/history`, { key })).status, 404);
    t.is((await s.management(`/signing-keys/${mine.id}/revisions/1`, { key })).status, 404);
    t.is((await s.management(`/signing-keys/${mine.id}/activate`, { key, method: 'POST', headers: { 'If-Match': mine.etag } })).status, 404);
    t.is((await s.management(`/signing-keys/${mine.id}/certificate`, { key, method: 'PUT', headers: { 'content-type': 'application/json', 'If-Match': mine.etag }, body: JSON.stringify({ chain: String(mine.data['certificate_chain']) }) })).status, 404);
    t.deepEqual(((await (await s.management('/signing-keys', { key })).json()) as { items: unknown[] }).items, []);
    t.is((await activate(s, mine)).status, 200, 'the owner activates it');
    t.is(await s.service.context.tenantKeys.active(other.right.tenantId, 'issuer'), undefined, 'the other tenant has no active key');
  });
});

test('signing keys need the admin scope', async (t) => {
  await withTestService(async (s) => {
    const created = await createApiKey(s.service.store, { tenantId: await tenantOf(s), scopes: ['resources'], expiration: null }, { actor: 'test' });
    if (isLeft(created)) throw new Error('key');
    await s.service.runner.waitFor(created.right.position, 5000);
    t.is((await s.management('/signing-keys', { ...json({ role: 'issuer' }), key: created.right.secret })).status, 403);
    t.is((await s.management('/signing-keys', { key: created.right.secret })).status, 403);
  });
});

test('an Idempotency-Key replays the creation: one key made', async (t) => {
  await withTestService(async (s) => {
    const headers = { 'Idempotency-Key': 'signing-key-0123456789abcdefghijklmnopqrstuvwxyz' };
    const first = await s.management('/signing-keys', json({ role: 'access' }, headers));
    const second = await s.management('/signing-keys', json({ role: 'access' }, headers));
    t.is(first.status, 201);
    t.is(second.status, 201);
    t.is(second.headers.get('idempotent-replayed'), 'true');
    t.is(((await first.json()) as Envelope).id, ((await second.json()) as Envelope).id);
    t.is(((await (await s.management('/signing-keys')).json()) as { items: unknown[] }).items.length, 1);
  });
});

/** Every file under `dir`. */
const files = async (dir: string): Promise<string[]> => {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await files(path)));
    else if ((await stat(path)).isFile()) found.push(path);
  }
  return found;
};

test('file store: the private key is sealed in its event, never clear on disk (its d in no file of DATA_DIR, in no encoding)', async (t) => {
  await withTestService(async (s) => {
    const created = await makeKey(s, { role: 'issuer', development_chain: true });
    await activate(s, created);
    // The private scalar, opened the way the service opens it: from the sealed event with the key's data key.
    const read = await s.service.store.readStream(signingKeyStream(created.id), { maxCount: 1 });
    const first = read._tag === 'Found' && read.events[0] ? decodeRecorded(signingKey.codec, read.events[0]) : undefined;
    if (first?.type !== 'SigningKeyCreated' || first.data.material.store !== 'file') throw new Error('not a file-store key');
    const dataKey = await s.service.context.dataKeys.find(signingKeyOwner(created.id));
    if (!dataKey) throw new Error('no data key');
    const { d } = openFor(dataKey, SIGNING_KEY_PRIVATE, first.data.material.sealedKey);
    const raw = Buffer.from(d, 'base64url');
    t.is(raw.length, 32);
    const encodings = [Buffer.from(d), raw, Buffer.from(raw.toString('hex')), Buffer.from(raw.toString('base64'))];
    await s.stop();
    const all = await files(s.dataDir);
    t.true(all.length > 0);
    for (const path of all) {
      const bytes = await readFile(path);
      for (const encoding of encodings) t.false(bytes.includes(encoding), `${path} holds the private key`);
    }
  });
});

test('a tenant\'s erasure destroys its signing keys: recorded destroyed (the port answers none at once), the data key gone, another tenant\'s key untouched', async (t) => {
  await withTestService(async (s) => {
    const tenantId = await tenantOf(s);
    const created = await makeKey(s, { role: 'issuer', development_chain: true });
    await activate(s, created);
    const { tenantKeys, dataKeys, keys } = s.service.context;
    t.truthy(await tenantKeys.active(tenantId, 'issuer'), 'kept in memory before the erasure');
    const other = await createTenant(s.service.store, { name: 'other' }, { actor: 'test' });
    if (isLeft(other)) throw new Error('tenant');
    const otherKey = await createApiKey(s.service.store, { tenantId: other.right.tenantId, scopes: ['admin'], expiration: null }, { actor: 'test' });
    if (isLeft(otherKey)) throw new Error('key');
    await s.service.runner.waitFor(otherKey.right.position, 5000);
    const theirs = await makeKey(s, { role: 'issuer', development_chain: true }, otherKey.right.secret);

    const destroyed = await destroyTenantSigningKeys(
      { db: s.service.runner.db, store: s.service.store, metadata: { actor: 'test' }, tenantKeys: keys.tenantKeys, dataKeys, now: () => new Date() },
      tenantId,
    );
    t.is(destroyed, 1);
    t.is(await dataKeys.find(signingKeyOwner(created.id)), undefined, 'the data key sealing it is gone');
    const stream = await s.service.store.readStream(signingKeyStream(created.id));
    const last = stream._tag === 'Found' ? stream.events[stream.events.length - 1] : undefined;
    if (!last) throw new Error('no events');
    t.true(await s.service.runner.waitFor(last.position, 30_000));
    const read = await s.management(`/signing-keys/${created.id}`);
    t.like(await read.json(), { data: { state: 'destroyed' } });
    t.is(await tenantKeys.active(tenantId, 'issuer'), undefined, 'never signs again');
    t.truthy(await dataKeys.find(signingKeyOwner(theirs.id)), 'the other tenant\'s key is untouched');
  });
});
