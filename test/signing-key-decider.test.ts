// The signing-key kind's decider (streams/signingKey.ts) in given / when / then form: the shared
// operations, then its own rules: a certificate must hold the key, be valid at the change and, for
// an issuer key, name the tenant's credential issuer; only a ready key is activated; an active key
// is retired when another replaces it, and a retired key never becomes active again.
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import type { ResourceDecider } from '../streams/resource.js';
import { signingKey, type CertificateFacts, type Command, type SigningKeyEvent } from '../streams/signingKey.js';
import { givenWhen, stateAfter } from './support/decider.js';
import { AT, LATER, RESOURCE_ID as keyId, sharedOperationTests, targetOn, TENANT } from './support/resourceKind.js';

const publicJwk = { kty: 'EC', crv: 'P-256', x: 'x-of-the-key', y: 'y-of-the-key' } as const;
const material = { store: 'pkcs11', label: `tenant-${TENANT}-${keyId}` } as const;
const facts = (role: 'access' | 'issuer') => ({ keyId, tenantId: TENANT, role, publicJwk, material, csr: 'CSR', certificate: null, annotations: {}, labels: {} });
const created = (role: 'access' | 'issuer' = 'issuer'): SigningKeyEvent => ({ type: 'SigningKeyCreated', data: { ...facts(role), createdAt: AT } });
const certificate = { chain: 'PEM', notBefore: AT, notAfter: '2027-05-01T10:00:00.000Z' };
const certified: SigningKeyEvent = { type: 'SigningKeyCertified', data: { keyId, certificate, state: 'ready', certifiedAt: LATER } };
const renewed: SigningKeyEvent = { type: 'SigningKeyCertified', data: { keyId, certificate, state: 'active', certifiedAt: LATER } };
const activated: SigningKeyEvent = { type: 'SigningKeyActivated', data: { keyId, activatedAt: LATER } };
const OTHER = '0b6f7f1f-5f0c-4d3e-9b1a-5b0c4a529c10';
const retired: SigningKeyEvent = { type: 'SigningKeyRetired', data: { keyId, replacedBy: OTHER, retiredAt: LATER } };

sharedOperationTests({
  decider: signingKey as unknown as ResourceDecider<SigningKeyEvent, Command>,
  create: { type: 'CreateSigningKey', data: { ...facts('issuer'), at: AT } },
  created: created(),
  annotated: (annotations) => ({ type: 'SigningKeyAnnotationsUpdated' as const, data: { keyId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'SigningKeyLabelsUpdated' as const, data: { keyId, labels, updatedAt: LATER } }),
  deleted: { type: 'SigningKeyDeleted', data: { keyId, deletedAt: LATER } },
  restored: { type: 'SigningKeyRestored', data: { keyId, restoredAt: LATER } },
});

const scenario = givenWhen(signingKey);
const envelope = (given: readonly SigningKeyEvent[]) => signingKey.envelopeOf(stateAfter(signingKey)(given));

const good: CertificateFacts = { certificate, leafKey: { x: publicJwk.x, y: publicJwk.y }, chainLinked: true, namesCredentialIssuer: true };
const attach = (given: readonly SigningKeyEvent[], with_: Partial<CertificateFacts> = {}) =>
  ({ type: 'AttachCertificate', data: { ...targetOn(given), ...good, ...with_ } }) as const;
const activate = (given: readonly SigningKeyEvent[]) => ({ type: 'ActivateSigningKey', data: targetOn(given) }) as const;
const retire = (given: readonly SigningKeyEvent[]) => ({ type: 'RetireSigningKey', data: { ...targetOn(given), replacedBy: OTHER } }) as const;

test('given a key without a certificate, it is pending; with a development chain at its creation, ready', (t) => {
  t.like(envelope([created()]), { data: { state: 'pending', certificate_chain: null, key_store: 'pkcs11', token_label: material.label } });
  const withChain: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('access'), certificate, createdAt: AT } };
  t.like(envelope([withChain]), { data: { state: 'ready', certificate_chain: 'PEM', not_before: AT, not_after: certificate.notAfter } });
});

test('the envelope never shows the sealed private key of a file-store key', (t) => {
  const sealedKey = { alg: 'A256GCM', iv: 'iv', ciphertext: 'secret-ciphertext', tag: 'tag' } as const;
  const event: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('access'), material: { store: 'file', sealedKey }, createdAt: AT } };
  const data = envelope([event])?.data;
  t.like(data, { key_store: 'file', token_label: null });
  t.false(JSON.stringify(data).includes('secret-ciphertext'));
});

test('given a pending key, when a certificate holding it, valid now, naming the issuer is attached, then SigningKeyCertified and ready', (t) => {
  t.deepEqual(scenario([created()], attach([created()])), right([certified]));
  t.like(envelope([created(), certified]), { revision: 2, data: { state: 'ready', certificate_chain: 'PEM' } });
});

test('given a pending key, when the certificate breaks a rule, then CertificateRefused naming it, checked in order', (t) => {
  const given = [created()];
  t.deepEqual(scenario(given, attach(given, { leafKey: { x: 'another', y: publicJwk.y } })), left({ _tag: 'CertificateRefused', rule: 'leaf_key' }));
  t.deepEqual(scenario(given, attach(given, { leafKey: undefined })), left({ _tag: 'CertificateRefused', rule: 'leaf_key' }));
  t.deepEqual(scenario(given, attach(given, { chainLinked: false })), left({ _tag: 'CertificateRefused', rule: 'chain' }));
  t.deepEqual(scenario(given, attach(given, { certificate: { ...certificate, notBefore: '2026-05-03T00:00:00.000Z' } })), left({ _tag: 'CertificateRefused', rule: 'not_yet_valid' }));
  t.deepEqual(scenario(given, attach(given, { certificate: { ...certificate, notAfter: LATER } })), left({ _tag: 'CertificateRefused', rule: 'expired' }));
  t.deepEqual(scenario(given, attach(given, { namesCredentialIssuer: false })), left({ _tag: 'CertificateRefused', rule: 'issuer_name' }));
});

test('an access key needs no issuer name in its certificate', (t) => {
  const given = [created('access')];
  t.is(scenario(given, attach(given, { namesCredentialIssuer: false }))._tag, 'Right');
});

test('the certificate rules come after the shared ones: another tenant is NotFound, a stale If-Match PreconditionFailed', (t) => {
  const given = [created()];
  t.deepEqual(scenario(given, { type: 'AttachCertificate', data: { ...targetOn(given, { tenantId: 'other' }), ...good, leafKey: undefined } }), left({ _tag: 'NotFound' }));
  t.deepEqual(scenario(given, { type: 'AttachCertificate', data: { ...targetOn(given, { revision: 7 }), ...good, leafKey: undefined } }), left({ _tag: 'PreconditionFailed' }));
});

test('the state follows the events: a certified key is ready, then active, then retired', (t) => {
  const withChain: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('issuer'), certificate, createdAt: AT } };
  t.like(envelope([withChain, activated]), { data: { state: 'active', activated_at: LATER } });
  t.like(envelope([withChain, activated, retired]), { data: { state: 'retired', retired_at: LATER, replaced_by: OTHER } });
});

test('given a ready key, when activated, then SigningKeyActivated; given a pending, active or retired key, then SigningKeyState naming it', (t) => {
  const ready: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('issuer'), certificate, createdAt: AT } };
  t.deepEqual(scenario([ready], activate([ready])), right([activated]));
  t.deepEqual(scenario([created()], activate([created()])), left({ _tag: 'SigningKeyState', state: 'pending', operation: 'activate' }));
  const active = [ready, activated];
  t.deepEqual(scenario(active, activate(active)), left({ _tag: 'SigningKeyState', state: 'active', operation: 'activate' }));
  const gone = [ready, activated, retired];
  t.deepEqual(scenario(gone, activate(gone)), left({ _tag: 'SigningKeyState', state: 'retired', operation: 'activate' }));
});

test('given an active key, when retired, then SigningKeyRetired naming its replacement; a key not active records nothing', (t) => {
  const ready: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('issuer'), certificate, createdAt: AT } };
  const active = [ready, activated];
  t.deepEqual(scenario(active, retire(active)), right([retired]));
  const gone = [...active, retired];
  t.deepEqual(scenario(gone, retire(gone)), right([]));
  t.deepEqual(scenario([ready], retire([ready])), right([]));
});

test('given the active key, when deleted, then SigningKeyState (activate another first); a stale If-Match is still PreconditionFailed; a retired key is deleted', (t) => {
  const ready: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('issuer'), certificate, createdAt: AT } };
  const active = [ready, activated];
  t.deepEqual(scenario(active, { type: 'Delete', data: targetOn(active) }), left({ _tag: 'SigningKeyState', state: 'active', operation: 'delete' }));
  t.deepEqual(scenario(active, { type: 'Delete', data: targetOn(active, { revision: 1 }) }), left({ _tag: 'PreconditionFailed' }));
  const gone = [...active, retired];
  t.deepEqual(scenario(gone, { type: 'Delete', data: targetOn(gone) }), right([{ type: 'SigningKeyDeleted', data: { keyId, deletedAt: LATER } }]));
});

test('given a retired key, a certificate is refused (SigningKeyState); an active key takes a renewed one and stays active', (t) => {
  const ready: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('issuer'), certificate, createdAt: AT } };
  const gone = [ready, activated, retired];
  t.deepEqual(scenario(gone, attach(gone)), left({ _tag: 'SigningKeyState', state: 'retired', operation: 'certify' }));
  const active = [ready, activated];
  t.deepEqual(scenario(active, attach(active)), right([renewed]));
  t.like(envelope([...active, renewed]), { data: { state: 'active' } });
});

test('given a key in any state, when destroyed with its tenant\'s data, then SigningKeyDestroyed (also deleted, without If-Match); again records nothing; then it is never activated or certified', (t) => {
  const ready: SigningKeyEvent = { type: 'SigningKeyCreated', data: { ...facts('issuer'), certificate, createdAt: AT } };
  const destroyed: SigningKeyEvent = { type: 'SigningKeyDestroyed', data: { keyId, destroyedAt: LATER } };
  const destroy = { type: 'DestroySigningKey', data: { tenantId: TENANT, id: keyId, at: LATER } } as const;
  const deleted: SigningKeyEvent = { type: 'SigningKeyDeleted', data: { keyId, deletedAt: LATER } };
  for (const given of [[created()], [ready, activated], [ready, activated, retired], [ready, deleted]]) {
    t.deepEqual(scenario(given, destroy), right([destroyed]));
  }
  const gone = [ready, activated, destroyed];
  t.like(envelope(gone), { data: { state: 'destroyed' } });
  t.deepEqual(scenario(gone, destroy), right([]));
  t.deepEqual(scenario(gone, activate(gone)), left({ _tag: 'SigningKeyState', state: 'destroyed', operation: 'activate' }));
  t.deepEqual(scenario(gone, attach(gone)), left({ _tag: 'SigningKeyState', state: 'destroyed', operation: 'certify' }));
  t.deepEqual(scenario([ready], { type: 'DestroySigningKey', data: { ...destroy.data, tenantId: 'other' } }), left({ _tag: 'NotFound' }));
});
