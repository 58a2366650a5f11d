// The data key decider in given / when / then form: the events a datakey stream already holds, a
// command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, type Command, type DataKeyEvent, type Sealed } from '../streams/dataKey.js';

const wrapped = (iv: string): Sealed => ({ alg: 'A256GCM', iv, ciphertext: 'wrapped', tag: 'tag' });
const issue = (iv: string): Command => ({ type: 'IssueDataKey', data: { ownerId: 'draft.1', wrappedKey: wrapped(iv) } });
const issued: DataKeyEvent = { type: 'DataKeyIssued', data: { ownerId: 'draft.1', wrappedKey: wrapped('iv-1') } };

test('given nothing, when a data key is issued, then DataKeyIssued with the key as wrapped', (t) => {
  t.deepEqual(decide(issue('iv-1'), initialState), right([issued]));
  t.deepEqual(evolve(initialState, issued), { status: 'issued', wrappedKey: wrapped('iv-1') });
});

test('given an issued key, when another is issued for the owner, then DataKeyExists', (t) => {
  t.deepEqual(decide(issue('iv-2'), evolve(initialState, issued)), left({ _tag: 'DataKeyExists', ownerId: 'draft.1' }));
});
