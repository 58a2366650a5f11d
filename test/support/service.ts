// Starts the whole service in-process on ephemeral loopback ports over a fresh data directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { startService, type Service } from '../../src/app/service.js';
import type { TenantIdentityPorts } from '../../src/app/features.js';
import { testKekEnv } from './kek.js';
import { documentedFetch } from './openapi.js';

export { withReachablePublicUrl } from '../../demo/ports.js';

export const BOOTSTRAP_KEY = 'test-bootstrap-key-0123456789abcdefghijklmnop';

export interface TestService {
  readonly service: Service;
  readonly config: Config;
  readonly dataDir: string;
  /**
   * fetch against the management listener, with the bootstrap key unless `key` says otherwise.
   * Like `wallet`, it fails on an answer the OpenAPI document does not describe.
   */
  management(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  wallet(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
  /** Stops and removes the data directory. */
  cleanup(): Promise<void>;
}

export const testConfig = (dataDir: string, env: Record<string, string> = {}): Config => {
  const config = loadConfig({
    DATA_DIR: dataDir,
    MANAGEMENT_PORT: '0',
    PUBLIC_PORT: '0',
    PUBLIC_HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    // Everything a test service fetches (its own status lists, a test's CRL and DID servers) is
    // on loopback; the tests of the egress guard set it to false.
    EGRESS_ALLOW_PRIVATE_NETWORKS: 'true',
    ...testKekEnv,
    ...env,
  });
  if (isLeft(config)) throw new Error(config.left.join('; '));
  return config.right;
};

export const startTestService = async (
  options: { env?: Record<string, string>; dataDir?: string; log?: Logger; tenantIdentity?: TenantIdentityPorts } = {},
): Promise<TestService> => {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'connector-')));
  const config = testConfig(dataDir, options.env);
  const service = await startService(config, options.log ?? silentLogger, options.tenantIdentity ? { tenantIdentity: options.tenantIdentity } : {});
  const management: TestService['management'] = (path, init = {}) => {
    const { key, ...rest } = init;
    const headers = new Headers(rest.headers);
    const secret = key === undefined ? BOOTSTRAP_KEY : key;
    if (secret !== null) headers.set('Authorization', `Bearer ${secret}`);
    return documentedFetch('management')(`${service.managementUrl}${path}`, { ...rest, headers });
  };
  return {
    service,
    config,
    dataDir,
    management,
    wallet: (path, init) => documentedFetch('public')(`${service.publicListenUrl}${path}`, init),
    stop: () => service.stop(),
    cleanup: async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};

/** Runs `body` against a fresh service and removes it afterwards, whatever happens. */
export const withTestService = async (
  body: (service: TestService) => Promise<void>,
  options: Parameters<typeof startTestService>[0] = {},
): Promise<void> => {
  const service = await startTestService(options);
  try {
    await body(service);
  } finally {
    await service.cleanup();
  }
};

