// The integrator's callback endpoint for the demo, on loopback: it keeps every callback whose
// Standard Webhooks signature verifies (with the connector's own signer, src/callbacks/signature.ts,
// keyed with the secret the demo configured) and answers 401 to any other, which the connector
// then retries.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signature } from '../src/callbacks/signature.js';

// Standard Webhooks' advice: refuse timestamps further than five minutes from the receiver's clock.
const TOLERANCE_SECONDS = 300;

export interface Callback {
  readonly webhookId: string;
  readonly body: Record<string, unknown>;
}

export interface CallbackReceiver {
  readonly url: string;
  /** Callbacks whose signature verified, in the order they came. */
  readonly received: readonly Callback[];
  /** Requests refused for their signature. */
  readonly refused: number;
  /** The first callback `match` accepts; polls at most `attempts` times, 50 ms apart. */
  waitFor(match: (body: Record<string, unknown>) => boolean, attempts?: number): Promise<Callback | undefined>;
  close(): Promise<void>;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Whether `body` carries a valid `v1` signature by `secret` from within the tolerance. */
export const verifyWebhook = (secret: string, headers: IncomingHttpHeaders, body: string, nowSeconds = Date.now() / 1000): boolean => {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(Number(timestamp) - nowSeconds) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signature(secret, id, Number(timestamp), body));
  return signatures.split(' ').some((given) => {
    const candidate = Buffer.from(given);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
};

export interface ReceiverOptions {
  /** Where to listen; unless told, loopback on a port free at the time. */
  readonly host?: string;
  readonly port?: number;
  /** Told of each callback once its signature verified (a retried delivery once). */
  readonly onCallback?: (callback: Callback) => void;
}

export const startCallbackReceiver = async (secret: string, options: ReceiverOptions = {}): Promise<CallbackReceiver> => {
  const received: Callback[] = [];
  let refused = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (!verifyWebhook(secret, request.headers, body)) {
        refused++;
        response.writeHead(401).end();
        return;
      }
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
      } catch {
        response.writeHead(400).end();
        return;
      }
      const webhookId = header(request.headers, 'webhook-id')!;
      // A retried delivery has the same webhook-id: kept once.
      if (!received.some((c) => c.webhookId === webhookId)) {
        const callback = { webhookId, body: parsed };
        received.push(callback);
        options.onCallback?.(callback);
      }
      response.writeHead(204).end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/callbacks`,
    received,
    get refused() {
      return refused;
    },
    async waitFor(match, attempts = 400) {
      for (let i = 0; i < attempts; i++) {
        const found = received.find((c) => match(c.body));
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received.find((c) => match(c.body));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
