// CPU time per flow, by process: the service runs in a child process (bench/serviceProcess.ts) so
// what it spends is measured apart from the load generator in this process, whose own CPU per
// flow is the yardstick for the machine's speed at that moment (a shared machine slows both).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runInFlight } from './load.js';
import type { Figure } from './report.js';
import type { Listening, Request } from './serviceProcess.js';

export interface ChildServer extends Listening {
  /** CPU milliseconds (user + system) the child has used so far. */
  cpuMs(): Promise<number>;
  /** The child's resident set size, bytes. */
  rssBytes(): Promise<number>;
  stop(): Promise<void>;
}

const cpuMsOf = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

/** CPU milliseconds (user + system) this process has used so far. */
export const ownCpuMs = (): number => cpuMsOf(process.cpuUsage());

/**
 * Starts the service over `dataDir` (or, with `bare`, a bare HTTP server) in a child process.
 * BENCH_PROFILE_DIR=<dir> writes the child's CPU profile there when it stops.
 */
export const startChild = async (mode: { service: string } | 'bare'): Promise<ChildServer> => {
  const profileDir = process.env['BENCH_PROFILE_DIR'];
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./serviceProcess.js', import.meta.url)),
    mode === 'bare' ? ['bare'] : ['service', mode.service],
    { execArgv: profileDir && mode !== 'bare' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const pending = new Map<number, (answer: { cpu?: NodeJS.CpuUsage; rss?: number }) => void>();
  let nextId = 0;
  const listening = await new Promise<Listening>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench: the ${mode === 'bare' ? 'bare server' : 'service'} process exited (${code}) before listening`)));
    child.on('message', (message: { id?: number; listening?: Listening; cpu?: NodeJS.CpuUsage; rss?: number }) => {
      if (message.listening) resolve(message.listening);
      else if (message.id !== undefined) pending.get(message.id)?.(message);
    });
  });
  child.removeAllListeners('exit');
  const ask = (kind: Request['kind']) =>
    new Promise<{ cpu?: NodeJS.CpuUsage; rss?: number }>((resolve) => {
      const id = nextId++;
      pending.set(id, (answer) => {
        pending.delete(id);
        resolve(answer);
      });
      child.send({ id, kind } satisfies Request);
    });
  return {
    ...listening,
    cpuMs: async () => cpuMsOf((await ask('cpu')).cpu!),
    rssBytes: async () => (await ask('memory')).rss!,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('stop');
      await exited;
    },
  };
};

/** Where a flow's requests go: the service in this process or in a child. */
export interface FlowTarget {
  /** fetch against the management listener with the bootstrap key. */
  management(path: string, init?: RequestInit): Promise<Response>;
  readonly publicUrl: string;
  readonly listenUrl: string;
}

export const childTarget = (child: ChildServer, bootstrapKey: string): FlowTarget => ({
  management: (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${bootstrapKey}`);
    return fetch(`${child.managementUrl}${path}`, { ...init, headers });
  },
  publicUrl: child.publicUrl,
  listenUrl: child.publicListenUrl,
});

/**
 * Runs `work` and returns what it returns; adds the CPU milliseconds it took to `into.ms`. Only
 * meaningful for work measured one at a time: concurrent work in this process would be counted too.
 */
export const metered = async <T>(into: { ms: number }, work: () => Promise<T>): Promise<T> => {
  const started = ownCpuMs();
  try {
    return await work();
  } finally {
    into.ms += ownCpuMs() - started;
  }
};

/** The knobs of the service CPU figures (BENCH_CPU_FLOWS, BENCH_LONG_FLOWS). */
export interface CpuBenchOptions {
  /** Flows per round. */
  readonly cpuFlows: number;
  /** Flows in the long run whose first and last quarters are compared. */
  readonly longFlows: number;
}

export interface ServiceCpuOptions {
  /** Names the figures, e.g. `verification`. */
  readonly label: string;
  readonly dir: string;
  readonly rounds: number;
  readonly inFlight: number;
  /** Flows per round. */
  readonly count: number;
  /** Flows in the long run whose first and last quarters are compared; 0 skips it. */
  readonly longFlows: number;
  /** HTTP exchanges in one flow. */
  readonly exchanges: number;
  readonly flow: (target: FlowTarget) => Promise<unknown>;
  /** One flow's cryptography; adds the CPU time of the service's share of it to `service.ms`. */
  readonly crypto: (service: { ms: number }) => Promise<void>;
  readonly bootstrapKey: string;
  readonly progress: (message: string) => void;
}

const BARE_BODY = JSON.stringify({ payload: 'x'.repeat(1500) });

const fixed = (n: number): string => n.toFixed(2);

/**
 * Service CPU per flow against its floor, and its drift over a long run. The floor is the
 * service's share of the flow's cryptography (measured one flow at a time in this process) plus
 * the CPU a bare node:http server in a child process spends answering as many exchanges under
 * the same load. Rounds take the three in turn, so the machine's load falls on all alike.
 */
export const serviceCpuFigures = async (options: ServiceCpuOptions): Promise<Figure[]> => {
  const service = await startChild({ service: `${options.dir}/${options.label}-cpu` });
  const bare = await startChild('bare');
  const target = childTarget(service, options.bootstrapKey);
  const run = (count: number) => runInFlight(count, options.inFlight, () => options.flow(target));
  const cpuPerFlow = async (count: number): Promise<{ service: number; generator: number }> => {
    const [service0, generator0] = [await service.cpuMs(), ownCpuMs()];
    await run(count);
    const [service1, generator1] = [await service.cpuMs(), ownCpuMs()];
    return { service: (service1 - service0) / count, generator: (generator1 - generator0) / count };
  };
  const exchange = async (): Promise<void> => {
    const response = await fetch(`${bare.publicListenUrl}/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: BARE_BODY });
    await response.json();
  };
  try {
    await run(Math.min(40, options.count));
    await runInFlight(200, options.inFlight, exchange);
    const ours: number[] = [];
    const reference: number[] = [];
    const parts = { crypto: [] as number[], bare: [] as number[] };
    options.progress(`${options.label} CPU: ${options.rounds} rounds of ${options.count} flows in a service process, then its floor`);
    for (let round = 0; round < options.rounds; round++) {
      ours.push((await cpuPerFlow(options.count)).service);
      const crypto = { ms: 0 };
      for (let i = 0; i < options.count; i++) await options.crypto(crypto);
      const bare0 = await bare.cpuMs();
      await runInFlight(options.count * options.exchanges, options.inFlight, exchange);
      const bareMs = (await bare.cpuMs()) - bare0;
      parts.crypto.push(crypto.ms / options.count);
      parts.bare.push(bareMs / options.count);
      reference.push(crypto.ms / options.count + bareMs / options.count);
    }
    const figures: Figure[] = [
      {
        name: `${options.label}: service CPU per flow / floor`,
        unit: 'ms',
        ours,
        reference,
        target: { atMost: 2 },
        note:
          `ours: CPU time (user + system) of the service process per flow, ${options.inFlight} flows in flight, ${options.count} a round; ` +
          `floor: the service's share of the flow's cryptography one flow at a time (${parts.crypto.map(fixed).join(', ')} ms a round) ` +
          `+ a bare node:http server process answering ${options.exchanges} JSON exchanges a flow under the same load (${parts.bare.map(fixed).join(', ')} ms a round).`,
      },
    ];
    if (options.longFlows > 0) {
      const quarter = Math.max(1, Math.round(options.longFlows / 4));
      options.progress(`${options.label} CPU: a long run of 4 x ${quarter} flows on the same service`);
      const quarters: { service: number; generator: number }[] = [];
      for (let q = 0; q < 4; q++) quarters.push(await cpuPerFlow(quarter));
      const normalised = quarters.map((q) => q.service / q.generator);
      figures.push({
        name: `${options.label}: service CPU per flow, last / first quarter`,
        unit: 'service/generator CPU',
        ours: normalised[3]!,
        reference: normalised[0]!,
        target: { atMost: 1.15 },
        note:
          `${4 * quarter} flows after the rounds above, on the same service and store; each quarter's service CPU per flow over the load generator's own ` +
          `CPU per flow in the same quarter (the yardstick for how fast the shared machine ran then). Quarters, service / generator ms per flow: ` +
          quarters.map((q) => `${fixed(q.service)} / ${fixed(q.generator)}`).join(', ') + '.',
      });
    }
    return figures;
  } finally {
    await Promise.all([service.stop(), bare.stop()]);
  }
};
