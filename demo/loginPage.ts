// A tiny login page standing in for the integrator's: the connector sends the user's browser here
// with `authorization_id`; the page asks the connector what is wanted, "logs the user in" (the demo
// has one user), completes the authorization with the user's claims and sends the browser on to
// the wallet. A real page would authenticate the user first; the two management calls are the same.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { showJson } from '../wallet/show.js';
import { say } from './print.js';

export interface LoginPage {
  readonly url: string;
  /** The management API to call, known once the connector has started. */
  connect(managementUrl: string, apiKey: string): void;
  close(): Promise<void>;
}

export const startLoginPage = async (claims: Record<string, unknown>): Promise<LoginPage> => {
  let management: { url: string; apiKey: string } | undefined;
  const call = async (path: string, body?: unknown) => {
    if (!management) throw new Error('the login page has no connector yet');
    const response = await fetch(`${management.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${management.apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const server = createServer((request, answer) => {
    const authorizationId = new URL(request.url ?? '/', 'http://login').searchParams.get('authorization_id') ?? '';
    void (async () => {
      const path = `/authorizations/${encodeURIComponent(authorizationId)}`;
      say(`login page: GET ${path}\n${showJson(await call(path))}`);
      say(`login page: the user logs in; POST ${path}/complete with their claims`);
      const { redirect_to: redirectTo } = await call(`${path}/complete`, { claims });
      say(`login page: 302 to the wallet: ${String(redirectTo).replace(/code=[^&]+/, 'code=…')}`);
      answer.writeHead(302, { Location: String(redirectTo) }).end();
    })().catch((err: Error) => {
      say(`login page: ${err.message}`);
      answer.writeHead(500, { 'Content-Type': 'text/plain' }).end('The authorization could not be completed.\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/login`,
    connect: (url, apiKey) => {
      management = { url, apiKey };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
