// A task run every `intervalMs` until stopped, never overlapping itself: the loop behind
// schedulers (expiry of sessions and offers) and retries. A failing run is logged and the
// loop goes on.
import type { Logger } from './log.js';

export interface Periodic {
  stop(): Promise<void>;
}

export const startPeriodic = (name: string, intervalMs: number, task: () => Promise<void>, log: Logger): Periodic => {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = task()
      .catch((err: unknown) => log.error(`${name} failed`, { err }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
};
