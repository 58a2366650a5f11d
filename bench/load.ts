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
