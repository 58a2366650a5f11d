// The tenant decider in given / when / then form: the events a tenant stream already holds, a
// command, and the events it decides (or the rejection); and the fold of the callback and
// authentication URL that stores from before tenant settings hold on the tenant stream.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, type Command, type TenantEvent } from '../streams/tenant.js';
import { sealSecret } from '../src/callbacks/tenantCallback.js';
import { givenWhen, stateAfter } from './support/decider.js';

const TENANT = 'tenant-1';
const AT = '2026-05-01T10:00:00.000Z';

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const create: Command = { type: 'CreateTenant', data: { tenantId: TENANT, name: 'acme', at: AT } };
const created: TenantEvent = { type: 'TenantCreated', data: { tenantId: TENANT, name: 'acme', createdAt: AT } };

test('given nothing, when a tenant is created, then TenantCreated; given it, then TenantExists', (t) => {
  t.deepEqual(scenario([], create), right([created]));
  t.deepEqual(scenario([created], create), left({ _tag: 'TenantExists', tenantId: TENANT }));
  t.like(stateOf([created]), { status: 'active', name: 'acme', callback: null, authenticationUrl: null });
});

test('a stream from before tenant settings: its callback and authentication URL fold into the state, the latest winning', (t) => {
  const secret = sealSecret(randomBytes(32), TENANT, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  const given: TenantEvent[] = [
    created,
    { type: 'TenantCallbackConfigured', data: { tenantId: TENANT, url: 'https://a.example/cb', secret, configuredAt: AT } },
    { type: 'TenantCallbackConfigured', data: { tenantId: TENANT, url: 'https://b.example/cb', secret, configuredAt: AT } },
    { type: 'TenantAuthenticationConfigured', data: { tenantId: TENANT, url: 'https://login.example', configuredAt: AT } },
  ];
  t.like(stateOf(given), { status: 'active', callback: { url: 'https://b.example/cb', secret }, authenticationUrl: 'https://login.example' });
});
