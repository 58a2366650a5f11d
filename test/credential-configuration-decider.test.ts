// The credential-configuration kind's decider in given / when / then form: the shared rules
// (created once, 404 for another tenant's, 412 on a stale If-Match, 409 when deleted), replacing
// the configuration as a new revision whose `data` is the new configuration whole, and the
// resource id each tenant's configuration id names.
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import {
  configurationResourceId,
  credentialConfiguration,
  type CredentialConfigurationEvent,
} from '../streams/credentialConfiguration.js';
import { givenWhen, stateAfter } from './support/decider.js';
import { AT, LATER, RESOURCE_ID as resourceId, sharedOperationTests, targetOn, TENANT } from './support/resourceKind.js';

const display = [{ lang: 'en', name: 'Badge' }];
const v1 = { id: 'badge', vct: 'urn:example:badge:1', display, claims: [{ path: ['level'], mandatory: true, sd: 'never', display: [] }] };
const v2 = { id: 'badge', vct: 'urn:example:badge:1', display, claims: [{ path: ['grade'], mandatory: false, sd: 'always', display: [] }] };
const facts = { resourceId, tenantId: TENANT, configuration: v1, annotations: {}, labels: {} };
const created: CredentialConfigurationEvent = { type: 'CredentialConfigurationCreated', data: { ...facts, createdAt: AT } };
const replaced: CredentialConfigurationEvent = { type: 'CredentialConfigurationReplaced', data: { resourceId, configuration: v2, replacedAt: LATER } };
const deleted: CredentialConfigurationEvent = { type: 'CredentialConfigurationDeleted', data: { resourceId, deletedAt: LATER } };

sharedOperationTests({
  decider: credentialConfiguration,
  create: { type: 'CreateCredentialConfiguration', data: { ...facts, at: AT } },
  created,
  annotated: (annotations) => ({ type: 'CredentialConfigurationAnnotationsUpdated' as const, data: { resourceId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'CredentialConfigurationLabelsUpdated' as const, data: { resourceId, labels, updatedAt: LATER } }),
  deleted,
  restored: { type: 'CredentialConfigurationRestored', data: { resourceId, restoredAt: LATER } },
});

const scenario = givenWhen(credentialConfiguration);
const stateOf = stateAfter(credentialConfiguration);
const replace = (given: readonly CredentialConfigurationEvent[], options: { revision?: number; tenantId?: string } = {}) =>
  ({ type: 'ReplaceCredentialConfiguration', data: { ...targetOn(given, options), configuration: v2 } }) as const;

test('given a configuration, when replaced under its etag, then CredentialConfigurationReplaced: revision 2 holds the new configuration whole', (t) => {
  t.deepEqual(scenario([created], replace([created])), right([replaced]));
  const envelope = credentialConfiguration.envelopeOf(stateOf([created, replaced]));
  t.like(envelope, { revision: 2, modifiedAt: LATER, deletedAt: null });
  // Whole: the claim of revision 1 is not merged into revision 2.
  t.deepEqual(envelope?.data, v2);
});

test('given a configuration, when replaced under a stale etag, then PreconditionFailed; by another tenant, NotFound; never created, NotFound', (t) => {
  const twice = [created, replaced];
  t.deepEqual(scenario(twice, replace(twice, { revision: 1 })), left({ _tag: 'PreconditionFailed' }));
  t.deepEqual(scenario([created], replace([created], { tenantId: 'tenant-2' })), left({ _tag: 'NotFound' }));
  t.deepEqual(scenario([], replace([])), left({ _tag: 'NotFound' }));
});

test('given a deleted configuration, when replaced, then Conflict deleted; when created again, then ResourceExists', (t) => {
  const gone = [created, deleted];
  t.deepEqual(scenario(gone, replace(gone)), left({ _tag: 'Conflict', reason: 'deleted' }));
  t.deepEqual(scenario(gone, { type: 'CreateCredentialConfiguration', data: { ...facts, at: LATER } }), left({ _tag: 'ResourceExists' }));
});

test('a configuration id names one resource per tenant: the same id in two tenants, two resources; one tenant, always the same UUID', (t) => {
  const a = configurationResourceId('tenant-a', 'pid');
  t.regex(a, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.is(configurationResourceId('tenant-a', 'pid'), a);
  t.not(configurationResourceId('tenant-b', 'pid'), a);
  t.not(configurationResourceId('tenant-a', 'pid2'), a);
});
