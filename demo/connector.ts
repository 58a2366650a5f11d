// The connector the demo talks to: one already running (its management API answers
// `GET /health/ready` with 200 `{"status":"ready"}` at the address given, by default the one
// `npm start` listens on), or else one the demo starts in this process on the embedded store, in
// a data directory of its own, with loopback listeners, a bootstrap API key and the demo's
// callback receiver as the tenant's callback URL; the demo's own connector also makes new tenants.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { generateWebhookSecret } from '../src/config/callbacks.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/log.js';
import { startService } from '../src/app/service.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { allScopes } from '../streams/apiKey.js';
import type { NewTenant } from './organisations.js';
import { withReachablePublicUrl } from './ports.js';
import { startCallbackReceiver, type CallbackReceiver } from './receiver.js';

export const DEFAULT_MANAGEMENT_URL = 'http://127.0.0.1:8081';

export interface Connector {
  readonly managementUrl: string;
  readonly apiKey: string;
  /** The callback receiver, when the demo started the connector and so chose where callbacks go. */
  readonly receiver: CallbackReceiver | undefined;
  /** How it came to be, for the reader. */
  readonly description: readonly string[];
  /** Service warnings and errors, when the demo started it. */
  readonly log: readonly string[];
  /** A new tenant and its API key (all scopes), as `ops tenants create` makes them: only on the demo's own connector, whose store it holds. */
  readonly newTenant: ((name: string) => Promise<NewTenant>) | undefined;
  close(): Promise<void>;
}

/** Why there is no ready connector at `managementUrl`, or undefined when there is one. */
export const notReadyReason = async (managementUrl: string): Promise<string | undefined> => {
  try {
    const response = await fetch(`${managementUrl}/health/ready`, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json().catch(() => ({}))) as { status?: unknown };
    return response.status === 200 && body.status === 'ready' ? undefined : `${managementUrl}/health/ready answered ${response.status}`;
  } catch (err) {
    return `nothing answers at ${managementUrl} (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`;
  }
};

export const runningConnector = (managementUrl: string, apiKey: string): Connector => ({
  managementUrl,
  apiKey,
  receiver: undefined,
  description: [
    `a connector is ready at ${managementUrl}: using it`,
    "its callbacks go to the tenant's callback URL, not to this demo",
  ],
  log: [],
  newTenant: undefined,
  close: async () => {},
});

/** Starts a connector in `directory` (which the caller removes) with a callback receiver. */
/** `env`: more settings, such as the authorization code flow's (the login page, the trusted wallet provider). */
export const startOwnConnector = async (directory: string, reason: string, env: Record<string, string> = {}): Promise<Connector> => {
  const secret = generateWebhookSecret();
  const receiver = await startCallbackReceiver(secret);
  const log: string[] = [];
  const apiKey = randomBytes(32).toString('base64url');
  try {
    const { service, dataDir } = await withReachablePublicUrl(async (publicEnv) => {
      const dataDir = await mkdtemp(join(directory, 'data-'));
      const config = loadConfig({
        DATA_DIR: dataDir,
        MANAGEMENT_HOST: '127.0.0.1',
        MANAGEMENT_PORT: '0',
        PUBLIC_HOST: '127.0.0.1',
        ...publicEnv,
        BOOTSTRAP_API_KEY: apiKey,
        // A throwaway store needs no key file: a key of its own, gone with it.
        DATA_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
        CALLBACK_URL: receiver.url,
        CALLBACK_SECRET: secret,
        LOG_LEVEL: 'warn',
        ...env,
      });
      if (isLeft(config)) throw new Error(config.left.join('; '));
      const logger = createLogger({ level: 'warn', write: (line) => log.push(line) });
      return { service: await startService(config.right, logger), dataDir };
    });
    return {
      managementUrl: service.managementUrl,
      apiKey,
      receiver,
      description: [
        `${reason}: starting one on the embedded store`,
        `data directory   ${dataDir} (removed at the end)`,
        `management API   ${service.managementUrl}`,
        `wallet-facing    ${service.publicListenUrl} (PUBLIC_URL)`,
        `callbacks to     ${receiver.url}, signed with a secret made for this run`,
      ],
      log,
      newTenant: async (name) => {
        const metadata = { actor: 'demo' };
        const tenant = await createTenant(service.store, { name }, metadata);
        if (isLeft(tenant)) throw new Error(`tenant ${name}: ${tenant.left.error._tag}`);
        const key = await createApiKey(service.store, { tenantId: tenant.right.tenantId, scopes: [...allScopes], expiration: null }, metadata);
        if (isLeft(key)) throw new Error(`API key of ${name}: ${key.left.error._tag}`);
        await service.runner.waitFor(key.right.position, 10_000);
        return { tenantId: tenant.right.tenantId, apiKey: key.right.secret };
      },
      close: async () => {
        await service.stop();
        await receiver.close();
      },
    };
  } catch (err) {
    await receiver.close();
    throw err;
  }
};
