// The `trustList` decider, given / when / then: events given, a command, the events it decides
// or its refusal. One test per row of the table in streams/trustList.ts.
import test from 'ava';
import { decide, evolve, initialState, type TrustListCommand, type TrustListEvent, type TrustListVersion } from '../streams/trustList.js';
import { givenWhen, stateAfter } from './support/decider.js';

const version = (overrides: Partial<TrustListVersion> = {}): TrustListVersion => ({
  sourceId: 'eu-lotl',
  url: 'https://tl.example/de.xml',
  format: 'tl',
  parentUrl: 'https://tl.example/lotl.xml',
  territory: 'DE',
  listType: 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric',
  operator: 'Test operator DE',
  sequenceNumber: 7,
  issuedAt: '2026-01-01T00:00:00.000Z',
  nextUpdate: '2026-07-01T00:00:00.000Z',
  digest: 'a'.repeat(64),
  blob: 'zQmA',
  size: 1000,
  fetchedAt: '2026-01-02T00:00:00.000Z',
  ...overrides,
});

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });
const given = (events: readonly TrustListEvent[]) => ({ when: (command: TrustListCommand) => scenario(events, command) });

const record = (v: TrustListVersion): TrustListCommand => ({ type: 'RecordFetchedVersion', version: v });
const accepted = (v: TrustListVersion): TrustListEvent => ({ type: 'TrustListVersionAccepted', data: v });

test('no version recorded: the fetched one is accepted', (t) => {
  t.deepEqual(given([]).when(record(version())), { _tag: 'Right', right: [accepted(version())] });
});

test('the recorded document fetched again: confirmed as of the new fetch, nothing else changes', (t) => {
  const again = version({ fetchedAt: '2026-01-03T00:00:00.000Z' });
  t.deepEqual(given([accepted(version())]).when(record(again)), {
    _tag: 'Right',
    right: [{ type: 'TrustListVersionConfirmed', data: { digest: again.digest, fetchedAt: '2026-01-03T00:00:00.000Z' } }],
  });
  const state = stateOf([accepted(version()), { type: 'TrustListVersionConfirmed', data: { digest: again.digest, fetchedAt: again.fetchedAt } }]);
  t.deepEqual(state, { status: 'recorded', version: again });
});

test('a lower sequence number than the recorded one is refused as a rewind', (t) => {
  const older = version({ sequenceNumber: 6, digest: 'b'.repeat(64) });
  t.deepEqual(given([accepted(version())]).when(record(older)), { _tag: 'Left', left: { _tag: 'SequenceRewound', recorded: 7, fetched: 6 } });
});

test('another document with a higher sequence number is accepted as the new version', (t) => {
  const newer = version({ sequenceNumber: 8, digest: 'c'.repeat(64) });
  t.deepEqual(given([accepted(version())]).when(record(newer)), { _tag: 'Right', right: [accepted(newer)] });
});

test('another document with the same sequence number (a list re-signed) is accepted', (t) => {
  const resigned = version({ digest: 'd'.repeat(64) });
  t.deepEqual(given([accepted(version())]).when(record(resigned)), { _tag: 'Right', right: [accepted(resigned)] });
});

test('a rewind is judged against the latest accepted version, not the first', (t) => {
  const history = [accepted(version()), accepted(version({ sequenceNumber: 9, digest: 'e'.repeat(64) }))];
  t.deepEqual(given(history).when(record(version({ sequenceNumber: 8, digest: 'f'.repeat(64) }))), {
    _tag: 'Left',
    left: { _tag: 'SequenceRewound', recorded: 9, fetched: 8 },
  });
});

test('a confirmation of another digest than the recorded one changes nothing', (t) => {
  const state = stateOf([accepted(version()), { type: 'TrustListVersionConfirmed', data: { digest: 'z'.repeat(64), fetchedAt: '2026-02-01T00:00:00.000Z' } }]);
  t.deepEqual(state, { status: 'recorded', version: version() });
});
