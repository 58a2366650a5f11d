// Flow latency under load, and a long soak. The service runs in a child process
// (bench/serviceProcess.ts) on the embedded store; the load is a mix of verification and issuance
// flows, taken in turn, through real HTTP with the test wallets.
//
// - latency: flows with 8 in flight, closed loop, for BENCH_LATENCY_SECONDS (default 20); the figure
//   is each flow's p99 beside its own p50 measured in the same run (the spread a wallet sees).
// - soak: first the mix's maximum (closed loop, 8 in flight), then an open loop at half of it for
//   BENCH_SOAK_SECONDS (default 600) after an untimed warm-up of 30 s; the figures compare the last
//   minute with the first: flow p99, and the service's resident set size. Growth beyond 10% is a leak
//   or a slowdown to find.
import { performance } from 'node:perf_hooks';
import { Sqlite } from '../src/sqlite/connection.js';
import { BOOTSTRAP_KEY } from '../test/support/service.js';
import { childTarget, startChild, type FlowTarget } from './cpu.js';
import { issuanceFlow } from './issuance.js';
import type { Figure } from './report.js';
import { median, percentile, perSecond } from './stats.js';
import { verificationFlow } from './verification.js';

export interface SoakBenchOptions {
  readonly dir: string;
  readonly progress: (message: string) => void;
  readonly latencySeconds: number;
  readonly soakSeconds: number;
}

const IN_FLIGHT = 8;
const WARM_UP_SECONDS = 30;
/** The open loop never has more than this many flows in flight: a stalled service shows as missed starts, not unbounded memory here. */
const MAX_IN_FLIGHT = 64;

type Flow = (target: FlowTarget) => Promise<unknown>;

interface Sample {
  /** Start, ms since the run began. */
  readonly at: number;
  readonly ms: number;
  readonly kind: 'verification' | 'issuance';
}

/** The two flows in turn. */
const mix = async (dir: string): Promise<(target: FlowTarget, n: number) => Promise<Sample['kind']>> => {
  const verify = await verificationFlow(dir);
  const flows: [Sample['kind'], Flow][] = [['verification', verify], ['issuance', issuanceFlow]];
  return async (target, n) => {
    const [kind, flow] = flows[n % flows.length]!;
    await flow(target);
    return kind;
  };
};

/** Closed loop: `IN_FLIGHT` flows at a time for `seconds`; every flow's latency. */
const closedLoop = async (seconds: number, run: (n: number) => Promise<Sample['kind']>): Promise<{ samples: Sample[]; perSecond: number }> => {
  const samples: Sample[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) {
        const at = performance.now();
        const kind = await run(next++);
        samples.push({ at: at - started, ms: performance.now() - at, kind });
      }
    }),
  );
  return { samples, perSecond: perSecond(samples.length, performance.now() - started) };
};

/** Open loop: flows started at `rate` per second for `seconds`, whatever the service's pace. */
const openLoop = async (
  rate: number,
  seconds: number,
  run: (n: number) => Promise<Sample['kind']>,
  every: { readonly ms: number; readonly tick: (elapsedMs: number) => Promise<void> },
): Promise<{ samples: Sample[]; missed: number }> => {
  const samples: Sample[] = [];
  const running = new Set<Promise<void>>();
  const started = performance.now();
  let launched = 0;
  let missed = 0;
  let nextTick = 0;
  for (let elapsed = 0; elapsed < seconds * 1000; elapsed = performance.now() - started) {
    for (const due = Math.floor((elapsed / 1000) * rate); launched < due; launched++) {
      if (running.size >= MAX_IN_FLIGHT) {
        missed++;
        continue;
      }
      const at = performance.now();
      const flow = run(launched).then((kind) => {
        samples.push({ at: at - started, ms: performance.now() - at, kind });
      });
      running.add(flow);
      void flow.finally(() => running.delete(flow));
    }
    if (elapsed >= nextTick) {
      await every.tick(elapsed);
      nextTick += every.ms;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(running);
  return { samples, missed };
};

const ofKind = (samples: readonly Sample[], kind: Sample['kind']): number[] => samples.filter((s) => s.kind === kind).map((s) => s.ms);
const fixed = (n: number): string => n.toFixed(1);

/** Appends acknowledged so far, from the service's own metrics. */
const appendsSoFar = async (target: FlowTarget): Promise<number> => {
  const text = await (await target.management('/metrics')).text();
  const count = /^connector_eventstore_append_duration_seconds_count\{outcome="ok"\} (\d+)/m.exec(text);
  if (!count) throw new Error('bench: /metrics has no append count');
  return Number(count[1]);
};

/** What one flow of a kind writes, callbacks included (the capacity model in docs/benchmarks.md builds on it). */
const writesPerFlow = async (target: FlowTarget, events: () => number, flow: Flow): Promise<string> => {
  const FLOWS = 40;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));
  await settle();
  const [appends0, events0] = [await appendsSoFar(target), events()];
  await Promise.all(Array.from({ length: FLOWS }, () => flow(target)));
  await settle();
  const [appends1, events1] = [await appendsSoFar(target), events()];
  return `${((appends1 - appends0) / FLOWS).toFixed(1)} appends, ${((events1 - events0) / FLOWS).toFixed(1)} events`;
};

/** p99 / p50 of each flow at 8 in flight. */
export const latencyFigures = async (options: SoakBenchOptions): Promise<Figure[]> => {
  const run = await mix(options.dir);
  const dataDir = `${options.dir}/latency`;
  const child = await startChild({ service: dataDir });
  const target = childTarget(child, BOOTSTRAP_KEY);
  const file = Sqlite.open(`${dataDir}/events.sqlite`, { synchronous: 'NORMAL', readOnly: true });
  // Positions are never reused: the head counts every event appended, erased ones (a destroyed data key) included.
  const events = () => file.get<{ n: number | null }>('SELECT MAX(position) AS n FROM events')!.n ?? 0;
  try {
    await closedLoop(3, (n) => run(target, n));
    const writes = {
      verification: await writesPerFlow(target, events, await verificationFlow(options.dir)),
      issuance: await writesPerFlow(target, events, issuanceFlow),
    };
    options.progress(`latency: ${options.latencySeconds} s of verification and issuance flows in turn, ${IN_FLIGHT} in flight`);
    const { samples, perSecond: rate } = await closedLoop(options.latencySeconds, (n) => run(target, n));
    return (['verification', 'issuance'] as const).map((kind) => {
      const ms = ofKind(samples, kind);
      return {
        name: `${kind}: flow p99 / p50 at ${IN_FLIGHT} in flight`,
        unit: 'ms',
        ours: percentile(ms, 99),
        reference: median(ms),
        target: { atMost: 3 },
        note:
          `${ms.length} ${kind} flows, mixed with the other kind in turn (${rate.toFixed(0)} flows/s in all), each timed from POST to the wallet's last answer. ` +
          `Writes per ${kind} flow, its callbacks included (no callback URL: recorded and ended undeliverable): ${writes[kind]}.`,
      };
    });
  } finally {
    file.close();
    await child.stop();
  }
};

/** The last minute of a soak at half the maximum against its first minute. */
export const soakFigures = async (options: SoakBenchOptions): Promise<Figure[]> => {
  const run = await mix(options.dir);
  const child = await startChild({ service: `${options.dir}/soak` });
  const target = childTarget(child, BOOTSTRAP_KEY);
  try {
    const max = (await closedLoop(15, (n) => run(target, n))).perSecond;
    const rate = max / 2;
    options.progress(`soak: ${max.toFixed(0)} flows/s at most; ${WARM_UP_SECONDS} s warm-up, then ${options.soakSeconds} s at ${rate.toFixed(0)} flows/s`);
    await openLoop(rate, WARM_UP_SECONDS, (n) => run(target, n), { ms: 60_000, tick: async () => undefined });
    const rss: { at: number; bytes: number }[] = [];
    const minuteMs = Math.min(60_000, (options.soakSeconds * 1000) / 3);
    const { samples, missed } = await openLoop(rate, options.soakSeconds, (n) => run(target, n), {
      ms: 5_000,
      tick: async (elapsed) => {
        rss.push({ at: elapsed, bytes: await child.rssBytes() });
        if (elapsed > 0 && Math.round(elapsed / 5_000) % 12 === 0) options.progress(`soak: ${Math.round(elapsed / 1000)} s`);
      },
    });
    rss.push({ at: options.soakSeconds * 1000, bytes: await child.rssBytes() });
    const endMs = options.soakSeconds * 1000;
    const first = (at: number) => at < minuteMs;
    const last = (at: number) => at >= endMs - minuteMs;
    const p99 = (keep: (at: number) => boolean) => percentile(samples.filter((s) => keep(s.at)).map((s) => s.ms), 99);
    const rssMb = (keep: (at: number) => boolean) => median(rss.filter((r) => keep(r.at)).map((r) => r.bytes)) / 2 ** 20;
    const window = `${Math.round(minuteMs / 1000)} s`;
    const load = `${samples.length} flows (verification and issuance in turn) over ${options.soakSeconds} s at ${rate.toFixed(0)} flows/s, half the ${max.toFixed(0)} flows/s measured at ${IN_FLIGHT} in flight; ${missed} starts missed (${MAX_IN_FLIGHT} in flight)`;
    return [
      {
        name: 'soak: flow p99, last / first minute',
        unit: 'ms',
        ours: p99(last),
        reference: p99(first),
        target: { atMost: 1.1 },
        note: `${load}; p99 of the flows started in the last ${window} against the first ${window}, after a ${WARM_UP_SECONDS} s warm-up.`,
      },
      {
        name: 'soak: service RSS, last / first minute',
        unit: 'MB',
        ours: rssMb(last),
        reference: rssMb(first),
        target: { atMost: 1.1 },
        note: `median of the service's resident set size sampled every 5 s in each ${window}; samples (MB): ${rss.map((r) => fixed(r.bytes / 2 ** 20)).join(', ')}.`,
      },
    ];
  } finally {
    await child.stop();
  }
};
