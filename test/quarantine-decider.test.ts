// The quarantine acknowledgment decider in given / when / then form (the events the
// acknowledgments stream already holds, a command, the events it decides), and the store's part:
// a position the store has no event at is refused, acknowledging again appends nothing, and
// acknowledgments racing for the stream are all recorded.
import test from 'ava';
import { right } from 'fp-ts/lib/Either.js';
import { acknowledgmentsStream, decide, evolve, initialState, type Command, type QuarantineAcknowledged } from '../streams/quarantine.js';
import { createTenant } from '../src/tenancy/commands.js';
import { acknowledgeQuarantine } from '../src/readside/quarantine.js';
import type { Position } from '../src/eventstore/port.js';
import { leftOf, rightOf } from './support/either.js';
import { withStoreDir } from './support/readmodels.js';
import { givenWhen, stateAfter } from './support/decider.js';

const FIRST = '2026-05-01T10:00:00.000Z';
const LATER = '2026-05-01T11:00:00.000Z';

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const acknowledge = (position: string, at: string): Command => ({ type: 'AcknowledgeQuarantine', data: { position, at } });
const acknowledged = (position: string, at: string): QuarantineAcknowledged => ({ type: 'QuarantineAcknowledged', data: { position, acknowledgedAt: at } });

test('given nothing acknowledged, when a position is acknowledged, then QuarantineAcknowledged at the command\'s time', (t) => {
  t.deepEqual(scenario([], acknowledge('42/42', FIRST)), right([acknowledged('42/42', FIRST)]));
});

test('given a position acknowledged, when acknowledged again, then nothing is recorded and the first time stays', (t) => {
  const given = [acknowledged('42/42', FIRST)];
  t.deepEqual(scenario(given, acknowledge('42/42', LATER)), right([]));
  t.is(stateOf(given).acknowledged.get('42/42'), FIRST);
});

test('given another position acknowledged, when a position is acknowledged, then it is recorded', (t) => {
  t.deepEqual(scenario([acknowledged('7/7', FIRST)], acknowledge('42/42', LATER)), right([acknowledged('42/42', LATER)]));
});

test('given a stream holding one position twice (written before the decider), the first acknowledgment counts', (t) => {
  const state = stateOf([acknowledged('42/42', FIRST), acknowledged('42/42', LATER)]);
  t.deepEqual([...state.acknowledged], [['42/42', FIRST]]);
});

const addEvents = async (store: Parameters<typeof createTenant>[0], count: number): Promise<Position[]> => {
  const positions: Position[] = [];
  for (let i = 0; i < count; i++) positions.push(rightOf(await createTenant(store, { name: `tenant ${i}` }, { actor: 'test' })).position);
  return positions;
};

test('the store: no event at the position is refused and records nothing; acknowledging again records nothing', async (t) => {
  await withStoreDir('quarantine-decider-', async (_dir, store) => {
    const [event] = await addEvents(store, 1);
    t.deepEqual(leftOf(await acknowledgeQuarantine(store, { commit: 999_999n, prepare: 999_999n }, { actor: 'test' })), { _tag: 'NoEventAtPosition' });
    t.is((await store.readStream(acknowledgmentsStream))._tag, 'StreamNotFound');

    const first = rightOf(await acknowledgeQuarantine(store, event!, { actor: 'test' }, new Date(FIRST)));
    t.truthy(first.position);
    t.is(first.acknowledgedAt, FIRST);
    const again = rightOf(await acknowledgeQuarantine(store, event!, { actor: 'test' }, new Date(LATER)));
    t.deepEqual(again, { position: undefined, acknowledgedAt: FIRST });
    const read = await store.readStream(acknowledgmentsStream);
    t.is(read._tag === 'Found' ? read.events.length : 0, 1);
  });
});

test('the store: acknowledgments of several positions at once are all recorded', async (t) => {
  await withStoreDir('quarantine-decider-', async (_dir, store) => {
    const events = await addEvents(store, 3);
    const results = await Promise.all(events.map((at) => acknowledgeQuarantine(store, at, { actor: 'test' })));
    t.true(results.every((r) => rightOf(r).position !== undefined));
    const read = await store.readStream(acknowledgmentsStream);
    t.is(read._tag === 'Found' ? read.events.length : 0, 3);
  });
});
