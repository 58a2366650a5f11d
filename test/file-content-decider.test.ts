// The file content decider in given / when / then form: the events a filecontent stream (one
// tenant's content) already holds, a command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { decide, evolve, initialState, type Command, type FileContentEvent } from '../streams/fileContent.js';
import { givenWhen, stateAfter } from './support/decider.js';

const AT = '2026-05-01T10:00:00.000Z';

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const claim = (fileId: string, again = false): Command => ({ type: 'ClaimContent', data: { fileId, again, at: AT } });
const claimed = (fileId: string): FileContentEvent => ({ type: 'FileContentClaimed', data: { fileId, claimedAt: AT } });
const release = (fileId: string): Command => ({ type: 'ReleaseContent', data: { fileId, at: AT } });
const released = (fileId: string): FileContentEvent => ({ type: 'FileContentReleased', data: { fileId, releasedAt: AT } });

test('given free content (never held, or released), when a file claims it, then FileContentClaimed', (t) => {
  t.deepEqual(scenario([], claim('a')), right([claimed('a')]));
  t.deepEqual(scenario([claimed('a'), released('a')], claim('b')), right([claimed('b')]));
});

test('given content held by a file, when another file claims it (create or restore), then Taken', (t) => {
  t.deepEqual(scenario([claimed('a')], claim('b')), left({ _tag: 'Taken' }));
  t.deepEqual(scenario([claimed('a')], claim('b', true)), left({ _tag: 'Taken' }));
});

test('given content held by a file, when the same file claims it again, then Taken for a create and claimed again for a restore', (t) => {
  t.deepEqual(scenario([claimed('a')], claim('a')), left({ _tag: 'Taken' }));
  t.deepEqual(scenario([claimed('a')], claim('a', true)), right([claimed('a')]));
});

test('given content held by a file, when it releases, then FileContentReleased and the content is free', (t) => {
  t.deepEqual(scenario([claimed('a')], release('a')), right([released('a')]));
  t.deepEqual(stateOf([claimed('a'), released('a')]), { status: 'free' });
});

test('given content free or held by another file, when a file releases it, then NotHolder (and a recorded foreign release changes nothing)', (t) => {
  t.deepEqual(scenario([], release('a')), left({ _tag: 'NotHolder', fileId: 'a' }));
  t.deepEqual(scenario([claimed('b')], release('a')), left({ _tag: 'NotHolder', fileId: 'a' }));
  t.deepEqual(stateOf([claimed('b'), released('a')]), { status: 'held', fileId: 'b' });
});
