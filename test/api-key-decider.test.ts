// The API key decider in given / when / then form: created once with the secret's hash, the
// resource API's shared operations, and the operator's delete under the same rule (a second
// delete is the resource API's 409, Conflict deleted).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { apiKey, apiKeyResource, type ApiKeyEvent, type Command } from '../streams/apiKey.js';
import { givenWhen, stateAfter } from './support/decider.js';
import { AT, LATER, RESOURCE_ID as keyId, sharedOperationTests, TENANT } from './support/resourceKind.js';

const key = { keyId, tenantId: TENANT, subjectId: 'subject-1', secretHash: 'hash', scopes: ['resources' as const], expiration: null, labels: { team: 'a' } };
const created: ApiKeyEvent = { type: 'ApiKeyCreated', data: { ...key, createdAt: AT } };
const deleted: ApiKeyEvent = { type: 'ApiKeyDeleted', data: { keyId, deletedAt: LATER } };

sharedOperationTests({
  decider: apiKeyResource,
  create: { type: 'CreateApiKey', data: { ...key, at: AT } },
  created,
  annotated: (annotations) => ({ type: 'ApiKeyAnnotationsUpdated' as const, data: { keyId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'ApiKeyLabelsUpdated' as const, data: { keyId, labels, updatedAt: LATER } }),
  deleted,
  restored: { type: 'ApiKeyRestored', data: { keyId, restoredAt: LATER } },
});

const scenario = givenWhen(apiKey);
const revoke: Command = { type: 'DeleteApiKey', data: { keyId, at: LATER } };

test('given nothing, when a key is created, then ApiKeyCreated with the hash (never a secret), its labels in the envelope', (t) => {
  t.deepEqual(scenario([], { type: 'CreateApiKey', data: { ...key, at: AT } }), right([created]));
  t.like(stateAfter(apiKey)([created]), { status: 'exists', resource: { tenantId: TENANT, revision: 1, labels: { team: 'a' }, data: { subject_id: 'subject-1' } } });
});

test('given a live key, when the operator deletes it, then ApiKeyDeleted; given it deleted, then Conflict deleted, as the resource API answers', (t) => {
  t.deepEqual(scenario([created], revoke), right([deleted]));
  t.deepEqual(scenario([created, deleted], revoke), left({ _tag: 'Conflict', reason: 'deleted' }));
});

test('given no key, when the operator deletes it, then ApiKeyNotFound', (t) => {
  t.deepEqual(scenario([], revoke), left({ _tag: 'ApiKeyNotFound', keyId }));
});
