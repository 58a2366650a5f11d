// A tenant's identity as use cases, without HTTP (issue 38's kinds), on a real embedded store, real
// read models, the file key store and real data keys: signing keys (create with a CSR or a
// development chain, certify by the chain rules, activate retiring the key replaced), credential
// configurations (create, replace) and the singletons `/settings` and `/verifier` (revision 1
// implicit from the tenant's creation, changes under If-Match). Each refusal is a value naming what
// is wrong, and a refused step writes nothing.
import test from 'ava';
import { randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { etagOf, type Envelope } from '../streams/resource.js';
import { signingKeyOwner, signingKeyStream } from '../streams/signingKey.js';
import { findActiveSigningKey } from '../projections/resources.js';
import { signingKeysKind } from '../src/resources/signingKeysKind.js';
import { certifyPublicKey, certificatesFromPem, certificatesToPem, createCertificateAuthority, EC_P256, subjectAltNamesOf, type CertifiedKey } from '../src/crypto/certificates.js';
import { loadDevelopmentCa } from '../src/crypto/signingIdentity.js';
import { sealedTenantKeys } from '../src/crypto/tenantKeys.js';
import type { EventStore } from '../src/eventstore/port.js';
import { activateSigningKey } from '../src/resources/activateSigningKey.js';
import { certifySigningKey } from '../src/resources/certifySigningKey.js';
import { checkConfiguration, createCredentialConfiguration } from '../src/resources/createCredentialConfiguration.js';
import { createSigningKey, type CreateSigningKeyDeps } from '../src/resources/createSigningKey.js';
import { credentialConfigurationsKind } from '../src/resources/credentialConfigurationsKind.js';
import { latestSingleton, singletonHistory, singletonOf, singletonRevision } from '../src/resources/readSingleton.js';
import { registerVerifier, verifierKind } from '../src/resources/registerVerifier.js';
import { replaceCredentialConfiguration } from '../src/resources/replaceCredentialConfiguration.js';
import { checkSettings, replaceSettings, settingsKind } from '../src/resources/replaceSettings.js';
import { updateResource } from '../src/resources/update.js';
import { updateSingleton } from '../src/resources/updateSingleton.js';
import { createTenant } from '../src/tenancy/commands.js';
import { tenantCredentialIssuer } from '../src/tenantIdentity/ports.js';
import { openCallbackSecret } from '../src/tenantIdentity/settings.js';
import { leftOf, rightOf } from './support/either.js';
import { withWorld as withWorldIn, type World } from './support/useCaseWorld.js';
import { MDL, PID_SD_JWT, registrarAnchor, registrationCertificate } from './support/registrationCertificate.js';

const PUBLIC_URL = 'https://connector.example';
const metadata = { actor: 'apikey:key-1', requestId: 'request-1' };
const at = () => new Date().toISOString();

const withWorld = (body: (world: World) => Promise<void>): Promise<void> => withWorldIn('use-cases-identity-', body);

const keyDeps = (world: World, allowDevelopmentChains = true): CreateSigningKeyDeps => ({
  store: world.store,
  tenantKeys: sealedTenantKeys,
  dataKeys: world.dataKeys,
  publicUrl: PUBLIC_URL,
  allowDevelopmentChains,
  developmentCa: () => loadDevelopmentCa(world.dir, 'test development CA'),
});

/** How many events stream `streamId` holds. */
const eventsOn = async (store: EventStore, streamId: string): Promise<number> => {
  const read = await store.readStream(streamId);
  return read._tag === 'Found' ? read.events.length : 0;
};

/** Whether the tenant's key `id` is at `etag` (the target of a change). */
const target = (tenantId: string, envelope: Pick<Envelope, 'id' | 'revision'>) => ({ tenantId, id: envelope.id, ifMatch: (etag: string) => etag === etagOf(envelope.id, envelope.revision), at: at() });

const publicKeyOf = (envelope: Envelope) => webcrypto.subtle.importKey('jwk', envelope.data['public_jwk'] as webcrypto.JsonWebKey, EC_P256, true, ['verify']);

/** A chain (leaf, CA) certifying `publicKey` with these subjectAltNames. */
const chainFor = async (ca: CertifiedKey, publicKey: webcrypto.CryptoKey, names: { type: 'dns' | 'url'; value: string }[]): Promise<string> =>
  certificatesToPem([await certifyPublicKey(ca, { commonName: 'tenant key', country: 'DE', subjectAltNames: names }, publicKey), ca.certificate]);

const issuerNames = (tenantId: string) => {
  const issuer = tenantCredentialIssuer(PUBLIC_URL, tenantId);
  return [{ type: 'url' as const, value: issuer }, { type: 'dns' as const, value: new URL(issuer).hostname }];
};

test('create signing key: made in the key store, sealed under its data key, pending with its CSR; a development chain where none is made is refused and writes nothing', async (t) => {
  await withWorld(async (world) => {
    const tenantId = randomUUID();
    t.deepEqual(leftOf(await createSigningKey(keyDeps(world, false), { tenantId, role: 'issuer', development_chain: true, at: at() }, metadata)), { _tag: 'DevelopmentChainsOff' });
    t.deepEqual(await world.store.readAll(), [], 'no key, no data key, no event');

    const created = rightOf(await createSigningKey(keyDeps(world, false), { tenantId, role: 'issuer', labels: { team: 'a' }, at: at() }, metadata));
    t.like(created.envelope, { tenantId, revision: 1, labels: { team: 'a' }, data: { role: 'issuer', state: 'pending' } });
    t.regex(created.envelope.data['csr'] as string, /BEGIN CERTIFICATE REQUEST/);
    t.truthy(await world.dataKeys.find(signingKeyOwner(created.envelope.id)), 'the key material is sealed under its own data key');
  });
});

test('create signing key with a development chain: ready at once, its leaf naming the tenant\'s credential issuer', async (t) => {
  await withWorld(async (world) => {
    const tenantId = randomUUID();
    const created = rightOf(await createSigningKey(keyDeps(world), { tenantId, role: 'issuer', development_chain: true, at: at() }, metadata));
    t.like(created.envelope.data, { state: 'ready' });
    const [leaf] = certificatesFromPem(created.envelope.data['certificate_chain'] as string);
    t.deepEqual(subjectAltNamesOf(leaf!), issuerNames(tenantId));
  });
});

test('certify signing key: the chain rules refuse another key, a chain not naming the issuer, unreadable PEM, a stale etag and another tenant; a good chain makes it ready', async (t) => {
  await withWorld(async (world) => {
    const tenantId = randomUUID();
    const created = rightOf(await createSigningKey(keyDeps(world), { tenantId, role: 'issuer', at: at() }, metadata));
    const key = created.envelope;
    const ca = await createCertificateAuthority({ commonName: 'Test CA', country: 'DE' });
    const deps = { store: world.store, publicUrl: PUBLIC_URL };
    const good = await chainFor(ca, await publicKeyOf(key), issuerNames(tenantId));
    const other = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])).publicKey;

    t.deepEqual(leftOf(await certifySigningKey(deps, target(tenantId, key), 'not PEM', metadata)), { _tag: 'ChainUnreadable', reason: 'not_pem' });
    t.deepEqual(leftOf(await certifySigningKey(deps, target(tenantId, key), await chainFor(ca, other, issuerNames(tenantId)), metadata)), { _tag: 'CertificateRefused', rule: 'leaf_key' });
    t.deepEqual(leftOf(await certifySigningKey(deps, target(tenantId, key), await chainFor(ca, await publicKeyOf(key), [{ type: 'dns', value: 'elsewhere.example' }]), metadata)), {
      _tag: 'CertificateRefused',
      rule: 'issuer_name',
    });
    t.deepEqual(leftOf(await certifySigningKey(deps, { ...target(tenantId, key), ifMatch: () => false }, good, metadata)), { _tag: 'PreconditionFailed' });
    t.deepEqual(leftOf(await certifySigningKey(deps, target(randomUUID(), key), good, metadata)), { _tag: 'NotFound' });
    t.is(await eventsOn(world.store, signingKeyStream(key.id)), 1, 'nothing recorded');

    const certified = rightOf(await certifySigningKey(deps, target(tenantId, key), good, metadata));
    t.like(certified.envelope, { revision: 2, data: { state: 'ready' } });
  });
});

test('activate signing key: a pending key is refused; activating a second key of the role retires the first, which never becomes active again', async (t) => {
  await withWorld(async (world) => {
    const tenantId = randomUUID();
    const deps = { store: world.store, runner: world.runner, readYourWritesTimeoutMs: 10_000 };
    const pending = rightOf(await createSigningKey(keyDeps(world), { tenantId, role: 'issuer', at: at() }, metadata)).envelope;
    t.deepEqual(leftOf(await activateSigningKey(deps, target(tenantId, pending), metadata)), { _tag: 'SigningKeyState', state: 'pending', operation: 'activate' });

    const first = rightOf(await createSigningKey(keyDeps(world), { tenantId, role: 'issuer', development_chain: true, at: at() }, metadata)).envelope;
    const second = rightOf(await createSigningKey(keyDeps(world), { tenantId, role: 'issuer', development_chain: true, at: at() }, metadata)).envelope;
    t.deepEqual(leftOf(await activateSigningKey(deps, { ...target(tenantId, first), ifMatch: () => false }, metadata)), { _tag: 'PreconditionFailed' });
    const firstActive = rightOf(await activateSigningKey(deps, target(tenantId, first), metadata));
    t.like(firstActive, { id: first.id, data: { state: 'active' } });
    const secondActive = rightOf(await activateSigningKey(deps, target(tenantId, second), metadata));
    t.like(secondActive, { id: second.id, data: { state: 'active' } });
    const retired = world.runner.db.get<{ data: string; revision: number }>('SELECT data, revision FROM resources WHERE id = ?', [first.id])!;
    t.like(JSON.parse(retired.data), { state: 'retired', replaced_by: second.id });
    t.deepEqual(leftOf(await activateSigningKey(deps, target(tenantId, { id: first.id, revision: retired.revision }), metadata)), { _tag: 'SigningKeyState', state: 'retired', operation: 'activate' });
  });
});

test('activate signing key after a crash between its two appends: the key activated last is the active one, and the next activation retires every leftover', async (t) => {
  await withWorld(async (world) => {
    const tenantId = randomUUID();
    const deps = { store: world.store, runner: world.runner, readYourWritesTimeoutMs: 10_000 };
    const made = async () => rightOf(await createSigningKey(keyDeps(world), { tenantId, role: 'access', development_chain: true, at: at() }, metadata)).envelope;
    const [first, second, third] = [await made(), await made(), await made()];
    rightOf(await activateSigningKey(deps, target(tenantId, first), metadata));
    // The second's activation appended, the process gone before the first was retired.
    const crashed = rightOf(await updateResource(world.store, signingKeysKind, target(tenantId, second), { type: 'ActivateSigningKey', data: {} }, metadata));
    await world.runner.waitFor(crashed.position, 10_000);
    t.is(findActiveSigningKey(world.runner.db, tenantId, 'access')?.id, second.id, 'the key activated last signs');
    rightOf(await activateSigningKey(deps, target(tenantId, third), metadata));
    const stateOf = (id: string) => (JSON.parse(world.runner.db.get<{ data: string }>('SELECT data FROM resources WHERE id = ?', [id])!.data) as { state: string; replaced_by?: string });
    t.like(stateOf(first.id), { state: 'retired', replaced_by: third.id });
    t.like(stateOf(second.id), { state: 'retired', replaced_by: third.id });
    t.is(findActiveSigningKey(world.runner.db, tenantId, 'access')?.id, third.id);
  });
});

const badge = (id = 'badge') => ({
  id,
  vct: 'https://example.org/badge',
  display: [{ lang: 'en', name: 'Badge' }],
  claims: [{ path: ['level'], mandatory: true, sd: 'never', value_type: 'integer', display: [{ lang: 'en', name: 'Level' }] }],
});

test('create credential configuration: the configuration rules refuse with every problem named; a second creation of its id is ConfigurationExists, live or deleted', async (t) => {
  await withWorld(async ({ store, runner, read }) => {
    const tenantId = randomUUID();
    const refused = leftOf(checkConfiguration({ ...badge(), format: 'ldp_vc', claims: 'none' }));
    t.is(refused._tag, 'ConfigurationRefused');
    t.true(refused.problems.length >= 2, 'every problem, not the first');

    const deps = { store, db: runner.db };
    const request = { tenantId, configuration: rightOf(checkConfiguration(badge())), annotations: {}, labels: {}, at: at() };
    const created = rightOf(await createCredentialConfiguration(deps, request, metadata));
    t.like(created.envelope, { tenantId, revision: 1, data: { id: 'badge' } });
    await read(created.position);
    t.deepEqual(leftOf(await createCredentialConfiguration(deps, request, metadata)), { _tag: 'ConfigurationExists', id: 'badge', deleted: false });

    const deleted = rightOf(await updateResource(store, credentialConfigurationsKind, target(tenantId, created.envelope), { type: 'Delete', data: {} }, metadata));
    await read(deleted.position);
    t.deepEqual(leftOf(await createCredentialConfiguration(deps, request, metadata)), { _tag: 'ConfigurationExists', id: 'badge', deleted: true });
    t.is(await eventsOn(store, credentialConfigurationsKind.streamOf(created.envelope.id)), 2, 'the refused creations recorded nothing');
  });
});

test('replace credential configuration: its id cannot change, another tenant\'s is NotFound, the rules refuse; a checked replacement is recorded', async (t) => {
  await withWorld(async ({ store, runner, read }) => {
    const tenantId = randomUUID();
    const created = rightOf(await createCredentialConfiguration({ store, db: runner.db }, { tenantId, configuration: rightOf(checkConfiguration(badge())), annotations: {}, labels: {}, at: at() }, metadata));
    await read(created.position);
    const address = { tenantId, kind: credentialConfigurationsKind.name, id: created.envelope.id };
    t.deepEqual(leftOf(replaceCredentialConfiguration(runner.db, address, badge('other'))), { _tag: 'ConfigurationIdChanged', id: 'other' });
    t.deepEqual(leftOf(replaceCredentialConfiguration(runner.db, { ...address, tenantId: randomUUID() }, badge())), { _tag: 'NotFound' });
    t.is(leftOf(replaceCredentialConfiguration(runner.db, address, { ...badge(), vct: 42 }))._tag, 'ConfigurationRefused');

    const change = rightOf(replaceCredentialConfiguration(runner.db, address, { ...badge(), status_list: false }));
    const replaced = rightOf(await updateResource(store, credentialConfigurationsKind, target(tenantId, created.envelope), change, metadata));
    t.like(replaced.envelope, { revision: 2, data: { id: 'badge', status_list: false } });
  });
});

/** A tenant, created and shown by the read models, and its singleton of `kind`. */
const newTenant = async ({ store, runner, read }: World, kind: { readonly name: string }) => {
  const tenant = rightOf(await createTenant(store, { name: 'identity' }, metadata));
  await read(tenant.position);
  return rightOf(singletonOf(runner.db, tenant.tenantId, kind));
};

/** A webhook secret in its format (whsec_ and 32 bytes, base64). */
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

const SETTINGS_CONFIG = { presentationExpiresInMin: 30, presentationExpiresInMax: 3600, egressAllowPrivateNetworks: false };

test('singletons: an unknown tenant is TenantNotKnown; revision 1 is implicit from the tenant\'s creation; a change under a stale etag is PreconditionFailed and writes nothing', async (t) => {
  await withWorld(async (world) => {
    t.deepEqual(leftOf(singletonOf(world.runner.db, randomUUID(), settingsKind)), { _tag: 'TenantNotKnown' });
    const a = await newTenant(world, settingsKind);
    const initial = latestSingleton(world.runner.db, settingsKind, a)!;
    t.like(initial, { id: a.id, revision: 1, createdAt: a.tenantCreatedAt });
    t.deepEqual(singletonHistory(world.runner.db, settingsKind, a), [initial]);
    t.deepEqual(singletonRevision(world.runner.db, settingsKind, a, 1), initial);
    t.is(singletonRevision(world.runner.db, settingsKind, a, 2), undefined);

    const before = await world.store.readAll();
    const change = async () => replaceSettings(world.kek, a.tenantId, {}, {});
    t.deepEqual(leftOf(await updateSingleton({ store: world.store, db: world.runner.db }, settingsKind, a, { ifMatch: () => false, at: at() }, change, metadata)), { _tag: 'PreconditionFailed' });
    t.deepEqual(await world.store.readAll(), before);
  });
});

test('settings: members checked as their variables, a private callback URL and a secret without URL or URL without secret refused; the secret sealed, kept while the URL stays', async (t) => {
  await withWorld(async (world) => {
    const a = await newTenant(world, settingsKind);
    t.deepEqual(leftOf(checkSettings([], SETTINGS_CONFIG)), { _tag: 'SettingsRefused', problems: [{ member: '(body)', message: 'expected a JSON object' }] });
    t.like(leftOf(checkSettings({ callback_url: 'https://10.0.0.1/cb' }, SETTINGS_CONFIG)), { _tag: 'SettingsRefused', problems: [{ member: 'callback_url' }] });
    t.like(leftOf(checkSettings({ presentation_expires_in: 5 }, SETTINGS_CONFIG)), { _tag: 'SettingsRefused', problems: [{ member: 'presentation_expires_in' }] });
    t.like(leftOf(replaceSettings(world.kek, a.tenantId, { callback_secret: 's3cret' }, {})), { problems: [{ member: 'callback_secret', message: 'given without callback_url' }] });
    t.like(leftOf(replaceSettings(world.kek, a.tenantId, { callback_url: 'https://hooks.example/cb' }, {})), { problems: [{ member: 'callback_secret', message: 'required with callback_url (none is set yet)' }] });

    const deps = { store: world.store, db: world.runner.db };
    const given = rightOf(checkSettings({ callback_url: 'https://hooks.example/cb', callback_secret: SECRET }, SETTINGS_CONFIG));
    const initial = latestSingleton(world.runner.db, settingsKind, a)!;
    const first = rightOf(await updateSingleton(deps, settingsKind, a, { ifMatch: (e) => e === etagOf(initial.id, initial.revision), at: at() }, async (current) => replaceSettings(world.kek, a.tenantId, given, current), metadata));
    t.false(JSON.stringify(first.envelope).includes(SECRET), 'the secret is sealed');
    t.is(openCallbackSecret(world.kek, a.tenantId, first.envelope.data['callback_secret'] as never), SECRET);
    await world.read(first.position);

    const kept = rightOf(await updateSingleton(deps, settingsKind, a, { ifMatch: (e) => e === etagOf(first.envelope.id, first.envelope.revision), at: at() }, async (current) => replaceSettings(world.kek, a.tenantId, { callback_url: 'https://hooks.example/cb' }, current), metadata));
    t.deepEqual(kept.envelope.data['callback_secret'], first.envelope.data['callback_secret']);
    await world.read(kept.position);
    t.deepEqual(singletonHistory(world.runner.db, settingsKind, a).map((e) => e.revision), [1, 2, 3]);
  });
});

test('verifier: enforcement without a certificate, a certificate breaking a rule, and one of a registrar not named are refused; a checked one is registered with its credentials', async (t) => {
  await withWorld(async (world) => {
    const a = await newTenant(world, verifierKind);
    const now = () => new Date();
    const anchored = { now, trustAnchors: [await registrarAnchor()] };
    t.deepEqual(leftOf(await registerVerifier({ now, trustAnchors: undefined }, { registration_certificate: null, enforce_registration: true })), {
      _tag: 'RegistrationRefused',
      member: 'enforce_registration',
      message: 'true needs a registration_certificate',
    });
    t.like(leftOf(await registerVerifier(anchored, { registration_certificate: await registrationCertificate({ typ: 'JWT' }), enforce_registration: false })), { member: 'registration_certificate' });
    const otherRegistrar = await createCertificateAuthority({ commonName: 'Another registrar', country: 'DE' });
    const foreign = leftOf(await registerVerifier(anchored, { registration_certificate: await registrationCertificate({ registrar: otherRegistrar }), enforce_registration: true }));
    t.regex(foreign.message, /^registrar: /);

    const certificate = await registrationCertificate();
    const initial = latestSingleton(world.runner.db, verifierKind, a)!;
    const registered = rightOf(
      await updateSingleton({ store: world.store, db: world.runner.db }, verifierKind, a, { ifMatch: (e) => e === etagOf(initial.id, initial.revision), at: at() }, () => registerVerifier(anchored, { registration_certificate: certificate, enforce_registration: true }), metadata),
    );
    t.like(registered.envelope, { revision: 2, data: { registration_certificate: certificate, enforce_registration: true } });
    t.deepEqual(registered.envelope.data['credentials'], [PID_SD_JWT, MDL]);
  });
});
