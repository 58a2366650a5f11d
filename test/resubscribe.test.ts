// The resubscribe loop the projection runner and the callback recorder share.
import test from 'ava';
import type { Subscription } from '../src/eventstore/port.js';
import { Resubscribing } from '../src/eventstore/resubscribe.js';

const failing = (): Subscription => ({
  stop: () => Promise.resolve(),
  async *[Symbol.asyncIterator]() {
    throw new Error('connection lost');
  },
});

test('after a failure it subscribes again; the wait doubles up to the longest and starts over once the consumer progressed', async (t) => {
  const waits: number[] = [];
  let attempts = 0;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const loop: Resubscribing = new Resubscribing({
    subscribe: () => {
      attempts++;
      return failing();
    },
    consume: async (subscription, progressed) => {
      if (attempts === 4) progressed();
      if (attempts === 6) {
        finish();
        return;
      }
      for await (const _ of subscription) t.fail('a failing subscription delivers nothing');
    },
    failed: (_err, retryInMs) => waits.push(retryInMs),
    backoffMs: { first: 10, max: 25 },
  });
  loop.start();
  await done;
  await loop.stop();
  t.deepEqual(waits, [10, 20, 25, 10, 20]);
  t.is(attempts, 6);
});

test('stopping while it waits to subscribe again ends the wait', async (t) => {
  let stopped: Promise<void> | undefined;
  const waited = new Promise<void>((resolve) => {
    const loop = new Resubscribing({
      subscribe: failing,
      consume: async (subscription) => {
        for await (const _ of subscription) t.fail('a failing subscription delivers nothing');
      },
      // A minute's wait: stop() must not sit it out (the test would time out).
      failed: () => setImmediate(() => {
        stopped = loop.stop();
        resolve();
      }),
      backoffMs: { first: 60_000, max: 60_000 },
    });
    loop.start();
  });
  await waited;
  await stopped;
  t.pass();
});
