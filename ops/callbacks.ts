// Ops commands for callbacks: a tenant's callback URL and secret, the deliveries with their
// attempts, and re-sends of abandoned ones. Listings come from a throwaway read model built from
// the store, so they are exact whether or not a service is running.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { deliveriesProjection, listDeliveries, type DeliveryListing } from '../projections/deliveries.js';
import type { DeliveryStatus } from '../streams/delivery.js';
import { isCallbackUrl } from '../src/callbacks/url.js';
import { isWebhookSecret } from '../src/callbacks/signature.js';
import { configureTenantCallback } from '../src/callbacks/tenantCallback.js';
import { resendDelivery } from '../src/callbacks/resend.js';
import type { Config } from '../src/config.js';
import { dataKeys } from '../src/crypto/dataKeys.js';
import { loadKek } from '../src/crypto/kek.js';
import type { EventStore } from '../src/eventstore/port.js';
import { createLogger } from '../src/log.js';
import { ProjectionRunner } from '../src/projection-runner.js';

export const callbacksUsage = `  callbacks set --tenant TENANT_ID --url URL [--secret whsec_...]
      where the tenant's callbacks go; without --secret the current one stays (or one is generated and printed once)
  deliveries list [--tenant TENANT_ID] [--status pending,delivered,abandoned,undeliverable]
      deliveries with their attempts, as JSON lines
  deliveries resend (--delivery DELIVERY_ID | --tenant TENANT_ID --abandoned)
      one more attempt of abandoned (or undeliverable) deliveries, same webhook-id, while their data exists
`;

export const callbacksOptions = {
  url: { type: 'string' },
  secret: { type: 'string' },
  status: { type: 'string' },
  delivery: { type: 'string' },
  abandoned: { type: 'boolean' },
} as const;

export interface CallbacksValues {
  readonly tenant?: string | undefined;
  readonly url?: string | undefined;
  readonly secret?: string | undefined;
  readonly status?: string | undefined;
  readonly delivery?: string | undefined;
  readonly abandoned?: boolean | undefined;
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'abandoned', 'undeliverable'];
const metadata = { actor: 'ops' };
/** Warnings (a key-encryption key file in DATA_DIR, a read model failing) go to stderr, apart from the output. */
const log = createLogger({ level: 'warn', write: (line) => process.stderr.write(`${line}\n`) });

const statusesOption = (value: string | undefined, usage: (message: string) => Error): DeliveryStatus[] | undefined => {
  if (value === undefined) return undefined;
  const given = value.split(',').map((s) => s.trim());
  const known = given.filter((s): s is DeliveryStatus => (STATUSES as readonly string[]).includes(s));
  if (known.length !== given.length) throw usage(`--status: choose from ${STATUSES.join(', ')}`);
  return known;
};

/** Builds the deliveries read model from the store into a temporary file and queries it. */
const withDeliveries = async <T>(store: EventStore, query: (runner: ProjectionRunner) => Promise<T>): Promise<T> => {
  const dir = await mkdtemp(join(tmpdir(), 'ops-deliveries-'));
  const runner = await ProjectionRunner.open({ store, file: join(dir, 'deliveries.sqlite'), projections: [deliveriesProjection], log });
  try {
    runner.start();
    await runner.whenCaughtUp();
    return await query(runner);
  } finally {
    await runner.close();
    await rm(dir, { recursive: true, force: true });
  }
};

const listingLine = (d: DeliveryListing): string => JSON.stringify({ ...d, data_destroyed: d.data_destroyed === 1 });

/** Runs a `callbacks` or `deliveries` command; undefined when the command is not one of them. */
export const runCallbacksCommand = async (
  command: string,
  values: CallbacksValues,
  config: Config,
  store: EventStore,
  out: (line: string) => void,
  usage: (message: string) => Error,
): Promise<number | undefined> => {
  switch (command) {
    case 'callbacks set': {
      if (!values.tenant || !values.url) throw usage('callbacks set: --tenant and --url are required');
      if (!isCallbackUrl(values.url)) throw usage('--url: expected an absolute http(s) URL without credentials or fragment');
      if (values.secret !== undefined && !isWebhookSecret(values.secret)) throw usage('--secret: expected whsec_ followed by 24 to 64 bytes in base64');
      const kek = await loadKek(config, log);
      const configured = await configureTenantCallback(store, kek, { tenantId: values.tenant, url: values.url, secret: values.secret }, metadata);
      if (isLeft(configured)) throw usage(`refused: ${configured.left._tag}`);
      const { tenantId, url, generatedSecret, position } = configured.right;
      out(JSON.stringify({ tenant_id: tenantId, url, changed: position !== undefined, ...(generatedSecret ? { secret: generatedSecret } : {}) }));
      return 0;
    }
    case 'deliveries list': {
      const states = statusesOption(values.status, usage);
      const listing = await withDeliveries(store, (runner) => listDeliveries(runner.db, { tenantId: values.tenant, states }));
      for (const d of listing) out(listingLine(d));
      return 0;
    }
    case 'deliveries resend': {
      const byTenant = values.tenant !== undefined && values.abandoned === true;
      if ((values.delivery === undefined) === !byTenant) throw usage('deliveries resend: give --delivery ID, or --tenant ID --abandoned');
      const ids = values.delivery !== undefined
        ? [values.delivery]
        : await withDeliveries(store, async (runner) =>
            (await listDeliveries(runner.db, { tenantId: values.tenant, states: ['abandoned', 'undeliverable'] })).map((d) => d.delivery_id));
      const keys = dataKeys(store, await loadKek(config, log));
      let refused = 0;
      for (const id of ids) {
        const resent = await resendDelivery(store, keys, id, metadata);
        if (isLeft(resent)) refused++;
        out(JSON.stringify({ delivery_id: id, resent: !isLeft(resent), ...(isLeft(resent) ? { refused: resent.left._tag } : {}) }));
      }
      return refused === 0 ? 0 : 1;
    }
  }
  return undefined;
};
