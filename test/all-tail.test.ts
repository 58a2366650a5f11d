// The embedded store's shared tail of `$all` (src/eventstore/allTail.ts): live subscriptions are
// served from one read of the file, and what they get is exactly what the file holds.
import test from 'ava';
import { AllTail } from '../src/eventstore/allTail.js';
import type { RecordedEvent } from '../src/eventstore/port.js';

const event = (position: number, streamId = `s-${position}`): RecordedEvent => ({
  streamId,
  id: `e${position}`,
  type: 'Happened',
  revision: 0,
  position: { commit: BigInt(position), prepare: BigInt(position) },
  data: {},
  metadata: null,
  created: new Date(0),
});

/** A file of events at the given positions (gaps allowed), counting the reads made of it. */
const file = (positions: number[]) => {
  let events = positions.map((p) => event(p));
  const reads: [number, number][] = [];
  return {
    reads,
    append: (...more: RecordedEvent[]) => events.push(...more),
    erase: (streamId: string) => (events = events.filter((e) => e.streamId !== streamId)),
    read: (after: number, upTo: number, limit: number) => {
      reads.push([after, upTo]);
      return events.filter((e) => Number(e.position.commit) > after && Number(e.position.commit) <= upTo).slice(0, limit);
    },
  };
};

const positions = (events: readonly RecordedEvent[]) => events.map((e) => Number(e.position.commit));

test('two subscriptions at the head read the new events from the file once', (t) => {
  const f = file([1, 2, 3]);
  const tail = new AllTail(f.read);
  t.deepEqual(positions(tail.read(0, 3, 10)), [1, 2, 3]);
  t.deepEqual(positions(tail.read(0, 3, 10)), [1, 2, 3]);
  f.append(event(5), event(6));
  t.deepEqual(positions(tail.read(3, 6, 10)), [5, 6]);
  t.deepEqual(positions(tail.read(2, 6, 10)), [3, 5, 6]);
  t.deepEqual(f.reads, [[0, 3], [3, 6]]);
});

test('a subscription behind the tail reads the file itself and gets every event in order', (t) => {
  const f = file(Array.from({ length: 5000 }, (_, i) => i + 1));
  const tail = new AllTail(f.read);
  t.is(tail.read(4990, 5000, 100).length, 10);
  const behind = tail.read(0, 5000, 500);
  t.deepEqual(positions(behind), Array.from({ length: 500 }, (_, i) => i + 1));
  t.deepEqual(f.reads.at(-1), [0, 5000]);
});

test('reads never go past the limit or the position asked for, and read on until the limit is reached', (t) => {
  const f = file(Array.from({ length: 30 }, (_, i) => i + 1));
  const tail = new AllTail(f.read);
  t.deepEqual(positions(tail.read(0, 30, 10)), Array.from({ length: 10 }, (_, i) => i + 1));
  // The tail now ends at 10; asking from 5 for 10 needs the file again.
  t.deepEqual(positions(tail.read(5, 30, 10)), Array.from({ length: 10 }, (_, i) => i + 6));
  t.deepEqual(positions(tail.read(5, 8, 10)), [6, 7, 8]);
});

test('a tombstoned stream is gone from the tail as from the file', (t) => {
  const f = file([1, 2]);
  f.append(event(3, 'datakey-x'), event(4));
  const tail = new AllTail(f.read);
  t.deepEqual(positions(tail.read(0, 4, 10)), [1, 2, 3, 4]);
  f.erase('datakey-x');
  tail.erase('datakey-x');
  t.deepEqual(positions(tail.read(0, 4, 10)), [1, 2, 4]);
});
