// A subscription to `$all` kept going through failures, for the readers that follow the store
// (the projection runner, the callback recorder). Each attempt subscribes afresh from wherever its
// consumer got to, so nothing is skipped; after a failure it waits before trying again, twice as
// long each time up to a ceiling, so a store that is down is not hammered, and it starts over at
// the shortest wait once the consumer has made progress again.
import type { Subscription } from './port.js';

export interface ResubscribeOptions {
  /** Subscribes from the consumer's position: called again for every attempt. */
  readonly subscribe: () => Subscription;
  /**
   * Reads the subscription until it ends; throws to have it retried. `progressed` says the
   * consumer got further (handled or committed an event), so the next failure waits the least.
   */
  readonly consume: (subscription: Subscription, progressed: () => void) => Promise<void>;
  /** Told of each failure before the wait; not while stopping, when a failure is expected. */
  readonly failed: (err: unknown, retryInMs: number) => void;
  /** The first wait after a failure, and the longest. */
  readonly backoffMs: { readonly first: number; readonly max: number };
}

export class Resubscribing {
  private subscription: Subscription | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  /** Ends the wait between attempts early, so that stopping does not wait it out. */
  private wake: (() => void) | undefined;

  constructor(private readonly options: ResubscribeOptions) {}

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.subscription?.stop();
    await this.running;
    this.running = undefined;
  }

  private async run(): Promise<void> {
    const { first, max } = this.options.backoffMs;
    let backoffMs = first;
    const progressed = (): void => {
      backoffMs = first;
    };
    while (!this.stopping) {
      const subscription = this.options.subscribe();
      this.subscription = subscription;
      try {
        await this.options.consume(subscription, progressed);
      } catch (err) {
        if (this.stopping) break;
        this.options.failed(err, backoffMs);
        await subscription.stop().catch(() => undefined);
      }
      // Also after a subscription the store ended: subscribing again at once could spin.
      if (this.stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoffMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      backoffMs = Math.min(backoffMs * 2, max);
    }
  }
}
