// `tenants list|create|set-authentication`. A tenant is created with its first API key, whose
// secret is printed once.
import type { Command } from 'commander';
import { isLeft } from 'fp-ts/lib/Either.js';
import { listTenants, tenantsProjection, type TenantRow } from '../projections/tenants.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { configureTenantAuthentication } from '../src/issuance/tenantAuthentication.js';
import { callbackUrlArgument } from './callbacks.js';
import { action, DONE, metadata, refusedBy, withStore } from './action.js';
import { keyOptions, printNewKey, type KeyOptions } from './apiKeys.js';
import { withFreshReadModels } from './freshReadModels.js';
import { JSON_OPTION, printListing, printRecord, type JsonOption } from './output.js';

export const registerTenants = (program: Command): void => {
  const tenants = program.command('tenants').alias('tenant').description('tenants of the connector');

  tenants
    .command('list')
    .description('every tenant, oldest first')
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption) =>
        withStore(async (store) => {
          const rows = await withFreshReadModels(store, [tenantsProjection], listTenants);
          printListing<TenantRow>(options, rows, [
            { header: 'TENANT_ID', cell: (r) => r.tenant_id },
            { header: 'CREATED_AT', cell: (r) => r.created_at },
            { header: 'NAME', cell: (r) => r.name },
          ]);
          return DONE;
        }),
      ),
    );

  keyOptions(
    tenants
      .command('create')
      .description("creates a tenant and its first API key; prints the key's secret once")
      .requiredOption('--name <name>', "the tenant's name"),
  )
    .option(...JSON_OPTION)
    .action(
      action((options: KeyOptions & { name: string }) =>
        withStore(async (store) => {
          const created = await createTenant(store, { name: options.name }, metadata);
          if (isLeft(created)) return refusedBy(created.left.error);
          const key = await createApiKey(store, { tenantId: created.right.tenantId, scopes: options.scopes, expiration: options.expires ?? null }, metadata);
          if (isLeft(key)) return refusedBy(key.left.error);
          printNewKey(options, key.right, { name: options.name });
          return DONE;
        }),
      ),
    );

  tenants
    .command('set-authentication')
    .description("where the tenant's users authenticate in the authorization code flow (the connector adds authorization_id)")
    .requiredOption('--tenant <tenant-id>', 'the tenant')
    .requiredOption('--url <url>', "absolute http(s) URL of the tenant's authentication page", callbackUrlArgument)
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption & { tenant: string; url: string }) =>
        withStore(async (store) => {
          const configured = await configureTenantAuthentication(store, { tenantId: options.tenant, url: options.url }, metadata);
          if (isLeft(configured)) return refusedBy(configured.left);
          const { changed } = configured.right;
          printRecord(options, { tenant_id: options.tenant, url: options.url, changed }, [
            ['tenant_id', options.tenant],
            ['url', options.url],
            ['changed', changed ? 'yes' : 'no (already so)'],
          ]);
          return DONE;
        }),
      ),
    );
};
