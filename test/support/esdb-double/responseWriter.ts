// The writing side of a Streams.Read call, with backpressure: responses go out only as fast as the
// client reads them.
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { WireError } from './errors.js';
import type { ReadReq, ReadResp } from './protos.js';

/** Writes one response, waiting while the client is not reading. False once the call is over. */
export class ResponseWriter {
  private closed = false;
  private markClosed: () => void = () => undefined;
  /** Resolves when the call ends, so waits elsewhere can be abandoned. */
  readonly ended = new Promise<void>((resolve) => (this.markClosed = resolve));

  constructor(
    private readonly call: ServerWritableStream<ReadReq, ReadResp>,
    private readonly open: Set<ResponseWriter>,
  ) {
    open.add(this);
    call.on('cancelled', this.close);
    call.on('close', this.close);
    call.on('error', this.close);
  }

  /** Marks the call over; also used for a server that is going away. */
  readonly close = (): void => {
    this.closed = true;
    this.open.delete(this);
    this.markClosed();
  };

  get isOpen(): boolean {
    return !this.closed;
  }

  async send(message: ReadResp): Promise<boolean> {
    if (this.closed) return false;
    if (!this.call.write(message)) {
      let onDrain = (): void => undefined;
      await Promise.race([new Promise<void>((resolve) => this.call.once('drain', (onDrain = resolve))), this.ended]);
      this.call.off('drain', onDrain);
    }
    return !this.closed;
  }

  end(): void {
    if (!this.closed) this.call.end();
  }

  fail(error: WireError): void {
    if (!this.closed) this.call.emit('error', error);
  }
}
