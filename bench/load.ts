// Closed-loop load for the flow benchmarks: `inFlight` workers each start the next run as soon as
// their last one ends, as independent wallets do, until `count` runs have started.
import { performance } from 'node:perf_hooks';
import { perSecond } from './stats.js';

export interface LoadResult {
  readonly perSecond: number;
  /**
   * Milliseconds the main thread was busy per run (event-loop utilisation): what a run costs the
   * one thread everything here shares, whatever the runs overlap with.
   */
  readonly mainMs: number;
}

export const runInFlight = async (count: number, inFlight: number, work: () => Promise<unknown>): Promise<LoadResult> => {
  const started = performance.now();
  const loop = performance.eventLoopUtilization();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (next < count) {
        next++;
        await work();
      }
    }),
  );
  return { perSecond: perSecond(count, performance.now() - started), mainMs: performance.eventLoopUtilization(loop).active / count };
};

export interface Sides {
  readonly ours: number[];
  readonly reference: number[];
  readonly oursMainMs: number[];
  readonly referenceMainMs: number[];
}

/** `rounds` rounds of `count` runs a side; rounds alternate which side goes first, so drift hits both alike. */
export const alternatingRounds = async (
  rounds: number,
  count: number,
  inFlight: number,
  ours: () => Promise<unknown>,
  reference: () => Promise<unknown>,
): Promise<Sides> => {
  const sides: Sides = { ours: [], reference: [], oursMainMs: [], referenceMainMs: [] };
  for (let round = 0; round < rounds; round++) {
    for (const work of round % 2 === 0 ? [ours, reference] : [reference, ours]) {
      const { perSecond, mainMs } = await runInFlight(count, inFlight, work);
      (work === ours ? sides.ours : sides.reference).push(perSecond);
      (work === ours ? sides.oursMainMs : sides.referenceMainMs).push(mainMs);
    }
  }
  return sides;
};
