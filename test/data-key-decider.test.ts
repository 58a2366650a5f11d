// The data key decider in given / when / then form: the events a datakey stream already holds, a
// command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, type Command, type DataKeyEvent, type Sealed } from '../streams/dataKey.js';
import { givenWhen, stateAfter } from './support/decider.js';

const scenario = givenWhen({ decide, evolve, initialState });

const wrapped = (iv: string): Sealed => ({ alg: 'A256GCM', iv, ciphertext: 'wrapped', tag: 'tag' });
const issue = (iv: string): Command => ({ type: 'IssueDataKey', data: { ownerId: 'draft.1', wrappedKey: wrapped(iv) } });
const issued: DataKeyEvent = { type: 'DataKeyIssued', data: { ownerId: 'draft.1', wrappedKey: wrapped('iv-1') } };

test('given nothing, when a data key is issued, then DataKeyIssued with the key as wrapped', (t) => {
  t.deepEqual(scenario([], issue('iv-1')), right([issued]));
  t.deepEqual(stateAfter({ evolve, initialState })([issued]), { status: 'issued', wrappedKey: wrapped('iv-1') });
});

test('given an issued key, when another is issued for the owner, then DataKeyExists', (t) => {
  t.deepEqual(scenario([issued], issue('iv-2')), left({ _tag: 'DataKeyExists', ownerId: 'draft.1' }));
});
