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

/**
 * `rounds` rounds of `count` sequential runs a side, the sides taking turns every `block` runs
 * within a round: for differences of a few percent, which load from outside the process (a
 * shared machine) would otherwise swamp between one side's block and the other's.
 */
export const interleavedRounds = async (
  rounds: number,
  count: number,
  block: number,
  ours: () => Promise<unknown>,
  reference: () => Promise<unknown>,
): Promise<Pick<Sides, 'ours' | 'reference'>> => {
  const sides = { ours: [] as number[], reference: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const elapsed = new Map<() => Promise<unknown>, number>([[ours, 0], [reference, 0]]);
    for (let done = 0; done < count; done += block) {
      const turn = (done / block) % 2 === 0 ? [ours, reference] : [reference, ours];
      for (const work of turn) {
        const started = performance.now();
        for (let i = 0; i < Math.min(block, count - done); i++) await work();
        elapsed.set(work, elapsed.get(work)! + performance.now() - started);
      }
    }
    sides.ours.push(perSecond(count, elapsed.get(ours)!));
    sides.reference.push(perSecond(count, elapsed.get(reference)!));
  }
  return sides;
};
