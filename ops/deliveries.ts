// `deliveries list|resend`: callback (and DIDComm message) deliveries with their attempts, and one more attempt of
// abandoned ones (same webhook-id) while their data exists.
import type { Command } from 'commander';
import { isLeft } from 'fp-ts/lib/Either.js';
import { deliveriesProjection, listDeliveries } from '../projections/deliveries.js';
import type { DeliveryStatus } from '../streams/delivery.js';
import { resendDelivery } from '../src/callbacks/resend.js';
import { dataKeys } from '../src/crypto/dataKeys.js';
import { openKeyStore } from '../src/app/keyStore.js';
import type { EventStore } from '../src/eventstore/port.js';
import { action, DONE, FAILED, log, metadata, REFUSED, withStore } from './action.js';
import { withFreshReadModels } from './freshReadModels.js';
import { deliveryStatusesArgument } from './options.js';
import { JSON_OPTION, printListing, type JsonOption } from './output.js';

const listing = (store: EventStore, filter: { readonly tenantId?: string | undefined; readonly states?: readonly DeliveryStatus[] | undefined }) =>
  withFreshReadModels(store, [deliveriesProjection], (db) => listDeliveries(db, filter));

export const registerDeliveries = (program: Command): void => {
  const deliveries = program.command('deliveries').description('callback and DIDComm message deliveries');

  deliveries
    .command('list')
    .description('deliveries with their attempts (the attempts in --json only), oldest first')
    .option('--tenant <tenant-id>', 'only the deliveries of this tenant')
    .option('--status <list>', 'comma-separated states from pending, delivered, abandoned, undeliverable', deliveryStatusesArgument)
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption & { tenant?: string; status?: DeliveryStatus[] }) =>
        withStore(async (store) => {
          const rows = await listing(store, { tenantId: options.tenant, states: options.status });
          printListing(
            options,
            rows.map((d) => ({ ...d, data_destroyed: d.data_destroyed === 1 })),
            [
              { header: 'DELIVERY_ID', cell: (d) => d.delivery_id },
              { header: 'TENANT_ID', cell: (d) => d.tenant_id },
              { header: 'EVENT', cell: (d) => d.status },
              { header: 'STATE', cell: (d) => d.state },
              { header: 'ATTEMPTS', cell: (d) => String(d.attempts) },
              { header: 'UPDATED_AT', cell: (d) => d.updated_at },
              { header: 'REASON', cell: (d) => d.abandon_reason ?? '-' },
            ],
          );
          return DONE;
        }),
      ),
    );

  deliveries
    .command('resend')
    .description('one more attempt of an abandoned (or undeliverable) delivery, same webhook-id, while its data exists; exit 1 if any is refused')
    .option('--delivery <delivery-id>', 'this delivery')
    .option('--tenant <tenant-id>', 'with --abandoned: every abandoned or undeliverable delivery of this tenant')
    .option('--abandoned', 'see --tenant')
    .option(...JSON_OPTION)
    .action(
      action(async (options: JsonOption & { delivery?: string; tenant?: string; abandoned?: boolean }, command: Command) => {
        const byDelivery = options.delivery !== undefined && options.tenant === undefined && options.abandoned === undefined;
        const byTenant = options.delivery === undefined && options.tenant !== undefined && options.abandoned === true;
        if (!byDelivery && !byTenant) command.error('error: give --delivery ID, or --tenant ID --abandoned', { exitCode: REFUSED });
        return withStore(async (store, config) => {
          const ids = options.delivery !== undefined
            ? [options.delivery]
            : (await listing(store, { tenantId: options.tenant, states: ['abandoned', 'undeliverable'] })).map((d) => d.delivery_id);
          const keyStore = await openKeyStore(config, log);
          const keys = dataKeys(store, keyStore.kek);
          const results: { delivery_id: string; resent: boolean; refused?: string }[] = [];
          for (const id of ids) {
            const resent = await resendDelivery(store, keys, id, metadata);
            results.push({ delivery_id: id, resent: !isLeft(resent), ...(isLeft(resent) ? { refused: resent.left.error._tag } : {}) });
          }
          keyStore.close();
          printListing(options, results, [
            { header: 'DELIVERY_ID', cell: (r) => r.delivery_id },
            { header: 'RESENT', cell: (r) => (r.resent ? 'yes' : `no: ${r.refused}`) },
          ]);
          return results.every((r) => r.resent) ? DONE : FAILED;
        });
      }),
    );
};
