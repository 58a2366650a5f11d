// A stream's events, live, as server-sent events (text/event-stream): first every event already
// in the stream, then each new one as the store's `$all` subscription delivers it (never a poll
// of the write side). The browser reads it with fetch() streaming, which can send the API key in
// a header (EventSource cannot, and the key never goes in a URL).
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { EventStore, Subscription } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { shownEvent, type ShownEvent } from './streamView.js';
import type { RecordedEvent } from '../../streams/kernel.js';

/** A comment line this often keeps proxies from closing a quiet connection. */
const HEARTBEAT_MS = 15_000;

const frame = (event: ShownEvent): string => `event: stream-event\nid: ${event.revision}\ndata: ${JSON.stringify(event)}\n\n`;

/** The live subscriptions this process serves, so that stopping the service ends them. */
export class LiveStreams {
  readonly #open = new Set<Subscription>();

  constructor(
    private readonly store: EventStore,
    private readonly log: Logger,
  ) {}

  /** Answers `ctx` with `history` and then every later event of `streamId`, until the client goes away. */
  serve(ctx: Context, streamId: string, history: readonly RecordedEvent[]): void {
    const last = history[history.length - 1];
    if (!last) throw new Error('a live view starts from an existing stream');
    const body = new PassThrough();
    ctx.req.socket.setTimeout(0);
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = body;
    for (const event of history) body.write(frame(shownEvent(event)));
    const subscription = this.store.subscribeToAll({ after: last.position, filter: { streamNamePrefixes: [streamId] } });
    this.#open.add(subscription);
    const heartbeat = setInterval(() => body.write(': heartbeat\n\n'), HEARTBEAT_MS);
    const end = (): void => {
      clearInterval(heartbeat);
      this.#open.delete(subscription);
      void subscription.stop();
      body.end();
    };
    ctx.req.once('close', end);
    void (async () => {
      try {
        for await (const message of subscription) {
          // The filter is a prefix: `presentation-ab` also matches `presentation-abc`.
          if (message.kind === 'event' && message.event.streamId === streamId) body.write(frame(shownEvent(message.event)));
        }
      } catch (err) {
        this.log.warn('console live view: subscription ended', { error: err instanceof Error ? err.message : String(err) });
      } finally {
        end();
      }
    })();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#open].map((subscription) => subscription.stop()));
    this.#open.clear();
  }
}
