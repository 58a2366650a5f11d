// The tenant decider in given / when / then form: the events a tenant stream already holds, a
// command, and the events it decides (or the rejection).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, type Command, type SecretBox, type TenantEvent } from '../streams/tenant.js';
import { openSecret, sealSecret } from '../src/callbacks/tenantCallback.js';
import { rightOf } from './support/either.js';
import { givenWhen, stateAfter } from './support/decider.js';

const TENANT = 'tenant-1';
const AT = '2026-05-01T10:00:00.000Z';
const kek = randomBytes(32);
const box: SecretBox = { seal: (secret) => sealSecret(kek, TENANT, secret), open: (sealed) => openSecret(kek, TENANT, sealed) };

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const create: Command = { type: 'CreateTenant', data: { tenantId: TENANT, name: 'acme', at: AT } };
const created: TenantEvent = { type: 'TenantCreated', data: { tenantId: TENANT, name: 'acme', createdAt: AT } };
const configure = (url: string, secret: string | undefined, generated = 'whsec_generated'): Command => ({
  type: 'ConfigureTenantCallback',
  data: { tenantId: TENANT, url, secret, generated, box, at: AT },
});
const configured = (url: string, secret: string): TenantEvent => ({
  type: 'TenantCallbackConfigured',
  data: { tenantId: TENANT, url, secret: box.seal(secret), configuredAt: AT },
});

/** A decided configuration with its secret opened: sealing is randomised, the secret is not. */
const opened = (events: readonly TenantEvent[]) =>
  events.map((e) => (e.type === 'TenantCallbackConfigured' ? { url: e.data.url, secret: box.open(e.data.secret), at: e.data.configuredAt } : e));

test('given nothing, when a tenant is created, then TenantCreated; given it, then TenantExists', (t) => {
  t.deepEqual(scenario([], create), right([created]));
  t.deepEqual(scenario([created], create), left({ _tag: 'TenantExists', tenantId: TENANT }));
  t.like(stateOf([created]), { status: 'active', name: 'acme', callback: null });
});

test('given no tenant, when its callback is configured, then TenantNotFound', (t) => {
  t.deepEqual(scenario([], configure('https://a.example/cb', 'whsec_x')), left({ _tag: 'TenantNotFound', tenantId: TENANT }));
});

test('given a tenant without a callback, when configured without a secret, then the generated secret is recorded, sealed', (t) => {
  t.deepEqual(opened(rightOf(scenario([created], configure('https://a.example/cb', undefined)))), [{ url: 'https://a.example/cb', secret: 'whsec_generated', at: AT }]);
});

test('given a callback, when configured with another URL and no secret, then the current secret stays', (t) => {
  const given = [created, configured('https://a.example/cb', 'whsec_current')];
  t.deepEqual(opened(rightOf(scenario(given, configure('https://b.example/cb', undefined)))), [{ url: 'https://b.example/cb', secret: 'whsec_current', at: AT }]);
});

test('given a callback, when configured with a new secret, then the new secret is recorded', (t) => {
  const given = [created, configured('https://a.example/cb', 'whsec_current')];
  t.deepEqual(opened(rightOf(scenario(given, configure('https://a.example/cb', 'whsec_new')))), [{ url: 'https://a.example/cb', secret: 'whsec_new', at: AT }]);
});

test('given a callback, when configured with what is set already (or no secret), then nothing is recorded', (t) => {
  const given = [created, configured('https://a.example/cb', 'whsec_current')];
  t.deepEqual(scenario(given, configure('https://a.example/cb', 'whsec_current')), right([]));
  t.deepEqual(scenario(given, configure('https://a.example/cb', undefined)), right([]));
  t.like(stateOf(given), { status: 'active', callback: { url: 'https://a.example/cb' } });
});

test('given a tenant, when its authentication URL is configured, then TenantAuthenticationConfigured; the same again records nothing; no tenant, TenantNotFound', (t) => {
  const configureAuthentication = (url: string): Command => ({ type: 'ConfigureTenantAuthentication', data: { tenantId: TENANT, url, at: AT } });
  const authenticationConfigured: TenantEvent = { type: 'TenantAuthenticationConfigured', data: { tenantId: TENANT, url: 'https://login.example', configuredAt: AT } };
  t.deepEqual(scenario([created], configureAuthentication('https://login.example')), right([authenticationConfigured]));
  t.like(stateOf([created, authenticationConfigured]), { authenticationUrl: 'https://login.example' });
  t.deepEqual(scenario([created, authenticationConfigured], configureAuthentication('https://login.example')), right([]));
  t.deepEqual(scenario([], configureAuthentication('https://login.example')), left({ _tag: 'TenantNotFound', tenantId: TENANT }));
});
