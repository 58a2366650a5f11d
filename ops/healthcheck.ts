// The container's health probe (the Dockerfile's HEALTHCHECK): exit 0 when the management
// listener's `GET /health/ready` answers 200, 1 otherwise. Node runs it, so the image needs no
// curl. It reads the service's own configuration (MANAGEMENT_HOST, MANAGEMENT_PORT and their
// defaults) from the same environment; a wildcard bind address is probed on loopback.
import { isLeft } from 'fp-ts/lib/Either.js';
import { loadConfig } from '../src/config/config.js';

/** Within the HEALTHCHECK's own timeout (5 s), so the probe says why rather than being killed. */
const TIMEOUT_MS = 4000;

/** The URL of the readiness route of a management listener bound to `host`:`port`. */
const readinessUrl = (host: string, port: number): string => {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}/health/ready`;
};

const probe = async (): Promise<string | undefined> => {
  const config = loadConfig(process.env);
  if (isLeft(config)) return `configuration error: ${config.left.join('; ')}`;
  const url = readinessUrl(config.right.managementHost, config.right.managementPort);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = await response.text();
    return response.status === 200 ? undefined : `${url} answered ${response.status}: ${body}`;
  } catch (err) {
    return `${url}: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`;
  }
};

const problem = await probe();
if (problem !== undefined) process.stderr.write(`not ready: ${problem}\n`);
process.exitCode = problem === undefined ? 0 : 1;
