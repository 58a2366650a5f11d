// The support request decider in given / when / then form: the events a support request stream
// already holds, a command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import type { Sealed } from '../streams/dataKey.js';
import { decide, evolve, initialState, type Command, type SupportRequestEvent } from '../streams/supportRequest.js';
import { givenWhen, stateAfter } from './support/decider.js';

const REQUEST = 'request-1';
const AT = '2026-05-01T10:00:00.000Z';
const message: Sealed = { alg: 'A256GCM', iv: 'iv', ciphertext: 'ct', tag: 'tag' };

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const create: Command = { type: 'CreateSupportRequest', data: { requestId: REQUEST, tenantId: 'tenant-1', type: 'DELETION', message, at: AT } };
const created: SupportRequestEvent = { type: 'SupportRequestCreated', data: { requestId: REQUEST, tenantId: 'tenant-1', type: 'DELETION', message, createdAt: AT } };

test('given nothing, when a support request is created, then SupportRequestCreated with the message as sealed', (t) => {
  t.deepEqual(scenario([], create), right([created]));
  t.deepEqual(stateOf([created]), { status: 'created', tenantId: 'tenant-1' });
});

test('given a support request, when created again, then SupportRequestExists', (t) => {
  t.deepEqual(scenario([created], create), left({ _tag: 'SupportRequestExists', requestId: REQUEST }));
});
