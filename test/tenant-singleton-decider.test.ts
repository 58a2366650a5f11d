// The tenant singletons' deciders (streams/singleton.ts, tenantSettings.ts, tenantVerifier.ts) in
// given / when / then form: revision 1 is implicit on an empty stream and recorded with the first
// change, at the tenant's creation; after it, each change one event under its If-Match; nothing
// else makes a singleton.
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { etagOf } from '../streams/resource.js';
import { singletonId } from '../streams/singleton.js';
import { initialSettings, SETTINGS_MEMBERS, tenantSettings, type TenantSettingsEvent } from '../streams/tenantSettings.js';
import { initialVerifier, tenantVerifier, type TenantVerifierEvent } from '../streams/tenantVerifier.js';
import { givenWhen, stateAfter } from './support/decider.js';

const TENANT = 'tenant-1';
const CREATED_AT = '2026-01-01T00:00:00.000Z';
const AT = '2026-05-01T10:00:00.000Z';
const settingsId = singletonId('settings', TENANT);
const verifierId = singletonId('verifier', TENANT);

const target = (id: string, etag: string, tenantId = TENANT) => ({ tenantId, id, ifMatch: (current: string) => current === etag, at: AT, tenantCreatedAt: CREATED_AT });
const created: TenantSettingsEvent = { type: 'TenantSettingsCreated', data: { settingsId, tenantId: TENANT, createdAt: CREATED_AT } };
const replaced = (settings: Record<string, unknown>): TenantSettingsEvent => ({
  type: 'TenantSettingsReplaced',
  data: { settingsId, settings: Object.fromEntries(SETTINGS_MEMBERS.map((m) => [m, (settings[m] ?? null) as never])), replacedAt: AT },
});
const scenario = givenWhen(tenantSettings);

test('singleton ids are UUIDs, distinct per kind and tenant, the same every time', (t) => {
  t.regex(settingsId, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.is(singletonId('settings', TENANT), settingsId);
  t.not(verifierId, settingsId);
  t.not(singletonId('settings', 'tenant-2'), settingsId);
});

test('given no event, when the settings are replaced under the etag of revision 1, then revision 1 (at the tenant\'s creation) and the change are recorded', (t) => {
  const when = { type: 'ReplaceSettings' as const, data: { ...target(settingsId, etagOf(settingsId, 1)), settings: { offer_ttl_seconds: 600 } } };
  t.deepEqual(scenario([], when), right([created, replaced({ offer_ttl_seconds: 600 })]));
  const envelope = tenantSettings.envelopeOf(stateAfter(tenantSettings)([created, replaced({ offer_ttl_seconds: 600 })]));
  t.like(envelope, { revision: 2, createdAt: CREATED_AT, modifiedAt: AT, data: { offer_ttl_seconds: 600, callback_url: null } });
  t.deepEqual(tenantSettings.envelopeOf(stateAfter(tenantSettings)([created])), initialSettings(TENANT, settingsId, CREATED_AT));
});

test('given no event, a stale etag is PreconditionFailed and another tenant\'s change NotFound; nothing is recorded', (t) => {
  t.deepEqual(scenario([], { type: 'ReplaceSettings', data: { ...target(settingsId, '"stale"'), settings: {} } }), left({ _tag: 'PreconditionFailed' }));
  t.deepEqual(scenario([created], { type: 'ReplaceSettings', data: { ...target(settingsId, etagOf(settingsId, 1), 'tenant-2'), settings: {} } }), left({ _tag: 'NotFound' }));
});

test('given revision 2, a change under its etag is one event replacing every member; under the etag of revision 1 PreconditionFailed', (t) => {
  const given = [created, replaced({ offer_ttl_seconds: 600, wallet_attestation: 'required' })];
  t.deepEqual(scenario(given, { type: 'ReplaceSettings', data: { ...target(settingsId, etagOf(settingsId, 2)), settings: { wallet_attestation: 'optional' } } }), right([replaced({ wallet_attestation: 'optional' })]));
  t.deepEqual(scenario(given, { type: 'ReplaceSettings', data: { ...target(settingsId, etagOf(settingsId, 1)), settings: {} } }), left({ _tag: 'PreconditionFailed' }));
  const after = tenantSettings.envelopeOf(stateAfter(tenantSettings)([...given, replaced({ wallet_attestation: 'optional' })]));
  t.like(after, { revision: 3, data: { offer_ttl_seconds: null, wallet_attestation: 'optional' } });
});

test('given no event, a shared operation (labels, delete) has no singleton to change: NotFound', (t) => {
  const labels = { type: 'UpdateLabels' as const, data: { tenantId: TENANT, id: settingsId, ifMatch: () => true, at: AT, labels: {} } };
  t.deepEqual(givenWhen(tenantSettings)([], labels as never), left({ _tag: 'NotFound' }));
});

test('given no event, when a registration is recorded, then revision 1 with nothing registered and the registration', (t) => {
  const first: TenantVerifierEvent = { type: 'TenantVerifierCreated', data: { verifierId, tenantId: TENANT, createdAt: CREATED_AT } };
  const credentials = [{ format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] } }];
  const when = { type: 'RegisterVerifier' as const, data: { ...target(verifierId, etagOf(verifierId, 1)), registrationCertificate: 'jwt', credentials, enforceRegistration: true } };
  const registered: TenantVerifierEvent = { type: 'TenantVerifierRegistered', data: { verifierId, registrationCertificate: 'jwt', credentials, enforceRegistration: true, registeredAt: AT } };
  t.deepEqual(givenWhen(tenantVerifier)([], when), right([first, registered]));
  t.like(initialVerifier(TENANT, verifierId, CREATED_AT), { revision: 1, data: { registration_certificate: null, credentials: [], enforce_registration: false } });
  t.like(tenantVerifier.envelopeOf(stateAfter(tenantVerifier)([first, registered])), { revision: 2, data: { registration_certificate: 'jwt', credentials, enforce_registration: true } });
});
