// An integrator's callback endpoint on loopback, controlled by the test: it records every request
// and answers as the test's `respond` says (a status, headers, or no answer at all). It verifies
// Standard Webhooks signatures itself, from the specification, not with the sender's code.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export type Answer = { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string } | 'hang';

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Decides each answer; `count` is how many requests with this webhook-id came before (0 first). */
  respond: (request: Received, count: number) => Answer;
  /** TCP connections accepted so far, whether or not a request followed. */
  connections(): number;
  /** Polls (bounded) until `check` holds on what was received; returns whether it did. */
  until(check: (received: readonly Received[]) => boolean, attempts?: number): Promise<boolean>;
  close(): Promise<void>;
}

export const startReceiver = async (): Promise<Receiver> => {
  const hanging = new Set<ServerResponse>();
  let connections = 0;
  const receiver: Omit<Receiver, 'url'> & { url: string } = {
    url: '',
    received: [],
    respond: () => ({ status: 200 }),
    connections: () => connections,
    async until(check, attempts = 400) {
      for (let i = 0; i < attempts; i++) {
        if (check(receiver.received)) return true;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return check(receiver.received);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = { path: req.url ?? '', method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const id = request.headers['webhook-id'];
      const count = receiver.received.filter((r) => r.headers['webhook-id'] === id).length;
      receiver.received.push(request);
      const answer = receiver.respond(request, count);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
  return receiver;
};

/** Standard Webhooks verification: HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the decoded secret. */
export const hasValidSignature = (secret: string, request: Received): boolean => {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const signatures = request.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(Number(timestamp) - Date.now() / 1000) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64'));
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    const given = Buffer.from(value ?? '');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
};

export const TEST_WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
