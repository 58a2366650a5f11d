// A child process of the benchmark: the whole service (`service <dataDir>`) or a bare node:http
// server answering JSON exchanges (`bare`), so that its CPU time is measured apart from the load
// generator's. It tells the parent where it listens, then answers `cpu` with process.cpuUsage()
// and `memory` with its resident set size, and stops on `stop`. Run it with --cpu-prof to profile the service alone under the bench load.
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startTestService } from '../test/support/service.js';

export interface Listening {
  readonly managementUrl: string;
  readonly publicListenUrl: string;
  readonly publicUrl: string;
}

/** Messages from the parent; every one is answered with one message. */
export type Request = { readonly id: number; readonly kind: 'cpu' | 'memory' | 'stop' };

/** A bare exchange's answer: the service's answers are JSON bodies of about this size. */
const ANSWER = JSON.stringify({ payload: 'x'.repeat(1500) });

const startBare = async (): Promise<{ listening: Listening; stop: () => Promise<void> }> => {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(ANSWER);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    listening: { managementUrl: url, publicListenUrl: url, publicUrl: url },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

const startService = async (dataDir: string): Promise<{ listening: Listening; stop: () => Promise<void> }> => {
  const service = await startTestService({ dataDir });
  return {
    listening: { managementUrl: service.service.managementUrl, publicListenUrl: service.service.publicListenUrl, publicUrl: service.config.publicUrl },
    stop: () => service.cleanup(),
  };
};

const [mode, dataDir] = process.argv.slice(2);
const started = mode === 'bare' ? await startBare() : await startService(dataDir!);
process.on('message', async (request: Request) => {
  if (request.kind === 'cpu') {
    process.send!({ id: request.id, cpu: process.cpuUsage() });
    return;
  }
  if (request.kind === 'memory') {
    process.send!({ id: request.id, rss: process.memoryUsage.rss() });
    return;
  }
  await started.stop();
  process.send!({ id: request.id }, () => process.disconnect());
});
process.send!({ listening: started.listening });
