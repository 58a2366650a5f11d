// A public URL that is really reachable: the connector hands out URIs under PUBLIC_URL that
// another party fetches (a wallet, a verifier reading a Status List), so PUBLIC_URL must name the
// port the public listener is on, which must therefore be chosen before the service starts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback port free at the moment of asking. */
const freeLoopbackPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * Starts something whose PUBLIC_URL must be reachable as such (URIs it hands out are fetched by
 * another party, e.g. its Status List Tokens): `start` gets PUBLIC_PORT and PUBLIC_URL naming one
 * loopback port. A port taken in between is tried again with another, a bounded number of times.
 */
export const withReachablePublicUrl = async <T>(start: (env: Record<string, string>) => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    try {
      return await start({ PUBLIC_PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw err;
    }
  }
};
