// The support request decider in given / when / then form: the events a support request stream
// already holds, a command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Sealed } from '../streams/dataKey.js';
import { decide, evolve, initialState, type Command, type DomainError, type SupportRequestEvent } from '../streams/supportRequest.js';

const REQUEST = 'request-1';
const AT = '2026-05-01T10:00:00.000Z';
const message: Sealed = { alg: 'A256GCM', iv: 'iv', ciphertext: 'ct', tag: 'tag' };

const scenario = (given: readonly SupportRequestEvent[], when: Command): Either<DomainError, SupportRequestEvent[]> => decide(when, given.reduce(evolve, initialState));

const create: Command = { type: 'CreateSupportRequest', data: { requestId: REQUEST, tenantId: 'tenant-1', type: 'DELETION', message, at: AT } };
const created: SupportRequestEvent = { type: 'SupportRequestCreated', data: { requestId: REQUEST, tenantId: 'tenant-1', type: 'DELETION', message, createdAt: AT } };

test('given nothing, when a support request is created, then SupportRequestCreated with the message as sealed', (t) => {
  t.deepEqual(scenario([], create), right([created]));
  t.deepEqual([created].reduce(evolve, initialState), { status: 'created', tenantId: 'tenant-1' });
});

test('given a support request, when created again, then SupportRequestExists', (t) => {
  t.deepEqual(scenario([created], create), left({ _tag: 'SupportRequestExists', requestId: REQUEST }));
});
