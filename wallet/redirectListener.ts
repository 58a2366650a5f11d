// Where the browser comes back to the wallet after the user authenticated: a loopback redirect URI
// (RFC 8252 section 7.3), as native apps use, waiting for the one authorization response.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RedirectListener {
  readonly redirectUri: string;
  /** The full URL the browser was redirected to (with code or error, state and iss). */
  readonly response: Promise<string>;
  close(): void;
}

export const listenForRedirect = async (timeoutMs: number): Promise<RedirectListener> => {
  let settle: { resolve: (url: string) => void; reject: (err: Error) => void } | undefined;
  const response = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((request, answer) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    if (url.pathname !== '/callback') {
      answer.writeHead(404).end();
      return;
    }
    answer.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The wallet has the answer; you can close this window.\n');
    settle?.resolve(url.toString());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(() => settle?.reject(new Error(`no authorization response within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  const close = () => {
    clearTimeout(timer);
    server.close();
    server.closeAllConnections();
  };
  void response.finally(close).catch(() => {});
  return { redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, response, close };
};
