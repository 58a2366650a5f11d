// The API key decider in given / when / then form: the events an API key stream already holds, a
// command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, type ApiKeyEvent, type Command, type DomainError } from '../streams/apiKey.js';

const KEY = 'key-1';
const AT = '2026-05-01T10:00:00.000Z';
const LATER = '2026-05-02T10:00:00.000Z';

const scenario = (given: readonly ApiKeyEvent[], when: Command): Either<DomainError, ApiKeyEvent[]> => decide(when, given.reduce(evolve, initialState));

const key = { keyId: KEY, tenantId: 'tenant-1', subjectId: 'subject-1', secretHash: 'hash', scopes: ['resources' as const], expiration: null, labels: { team: 'a' } };
const create: Command = { type: 'CreateApiKey', data: { ...key, at: AT } };
const created: ApiKeyEvent = { type: 'ApiKeyCreated', data: { ...key, createdAt: AT } };
const remove: Command = { type: 'DeleteApiKey', data: { keyId: KEY, at: LATER } };
const deleted: ApiKeyEvent = { type: 'ApiKeyDeleted', data: { keyId: KEY, deletedAt: LATER } };

test('given nothing, when a key is created, then ApiKeyCreated with the hash (never a secret); given it, then ApiKeyExists', (t) => {
  t.deepEqual(scenario([], create), right([created]));
  t.deepEqual(scenario([created], create), left({ _tag: 'ApiKeyExists', keyId: KEY }));
  t.like([created].reduce(evolve, initialState), { status: 'active', tenantId: 'tenant-1', resource: { revision: 1, labels: { team: 'a' } } });
});

test('given an active key, when deleted, then ApiKeyDeleted and the key is deleted', (t) => {
  t.deepEqual(scenario([created], remove), right([deleted]));
  t.like([created, deleted].reduce(evolve, initialState), { status: 'deleted', resource: { revision: 2, deletedAt: LATER } });
});

test('given a deleted key, when deleted again, then nothing is recorded', (t) => {
  t.deepEqual(scenario([created, deleted], remove), right([]));
});

test('given no key, when deleted, then ApiKeyNotFound', (t) => {
  t.deepEqual(scenario([], remove), left({ _tag: 'ApiKeyNotFound', keyId: KEY }));
});
