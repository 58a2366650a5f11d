// A CRL distribution point on 127.0.0.1 that a test controls: what it serves at each path, and
// whether it answers at all (a `hang` path never responds, for fetch time-outs).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type CrlResponse = { readonly status: number; readonly body: Uint8Array } | 'hang';

export interface CrlServer {
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  serve(path: string, response: CrlResponse): void;
  /** Requests received per path. */
  hits(path: string): number;
  /** TCP connections accepted so far, whether or not a request followed. */
  connections(): number;
  close(): Promise<void>;
}

export const startCrlServer = async (): Promise<CrlServer> => {
  const responses = new Map<string, CrlResponse>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const response = responses.get(path) ?? { status: 404, body: new Uint8Array() };
    if (response === 'hang') return;
    res.writeHead(response.status, { 'content-type': 'application/pkix-crl', 'content-length': response.body.byteLength });
    res.end(response.body);
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    connections: () => connections,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    serve: (path, response) => void responses.set(path, response),
    hits: (path) => counts.get(path) ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
