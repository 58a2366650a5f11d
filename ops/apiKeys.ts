// `api-keys list|create|revoke`. A key's secret is printed once, when it is created; only its
// SHA-256 is stored, and no listing shows either.
import { Option, type Command } from 'commander';
import { isLeft } from 'fp-ts/lib/Either.js';
import { apiKeysProjection, listApiKeys, type ApiKeyListing } from '../projections/apiKeys.js';
import { allScopes, type Scope } from '../streams/apiKey.js';
import { createApiKey, deleteApiKey, type NewApiKey } from '../src/tenancy/commands.js';
import { action, DONE, metadata, refusedBy, withStore } from './action.js';
import { withFreshReadModels } from './freshReadModels.js';
import { futureDateTimeArgument, scopesArgument } from './options.js';
import { JSON_OPTION, printListing, printNote, printRecord, type JsonOption } from './output.js';

export interface KeyOptions extends JsonOption {
  readonly scopes: Scope[];
  readonly expires?: string;
}

/** `--scopes` and `--expires`, for every command that makes a key. */
export const keyOptions = (command: Command): Command =>
  command
    .addOption(new Option('--scopes <list>', `comma-separated, from ${allScopes.join(', ')}`).argParser(scopesArgument).default([...allScopes], 'all'))
    .option('--expires <date-time>', 'when the key stops working, ISO 8601 (default: never)', futureDateTimeArgument);

/** A new key and its secret (after `about`, what else was created), with the warning that it is not shown again. */
export const printNewKey = (options: JsonOption, key: NewApiKey, about: Readonly<Record<string, string>> = {}): void => {
  const record = { tenant_id: key.tenantId, ...about, api_key_id: key.keyId, secret: key.secret, scopes: key.scopes, expiration: key.expiration };
  printRecord(options, record, [
    ['tenant_id', key.tenantId],
    ...Object.entries(about),
    ['api_key_id', key.keyId],
    ['scopes', key.scopes.join(',')],
    ['expiration', key.expiration ?? 'never'],
    ['secret', key.secret],
  ]);
  printNote(options, 'The secret is shown this once: only its SHA-256 is stored.');
};

export const registerApiKeys = (program: Command): void => {
  const apiKeys = program.command('api-keys').alias('key').description('API keys of the tenants');

  apiKeys
    .command('list')
    .description('every key, revoked ones included; never a secret')
    .option('--tenant <tenant-id>', 'only the keys of this tenant')
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption & { tenant?: string }) =>
        withStore(async (store) => {
          const keys = await withFreshReadModels(store, [apiKeysProjection], (db) => listApiKeys(db, { tenantId: options.tenant }));
          printListing<ApiKeyListing>(options, keys, [
            { header: 'API_KEY_ID', cell: (k) => k.api_key_id },
            { header: 'TENANT_ID', cell: (k) => k.tenant_id },
            { header: 'SCOPES', cell: (k) => k.scopes.join(',') },
            { header: 'EXPIRATION', cell: (k) => k.expiration ?? 'never' },
            { header: 'CREATED_AT', cell: (k) => k.created_at },
            { header: 'REVOKED_AT', cell: (k) => k.revoked_at ?? '-' },
          ]);
          return DONE;
        }),
      ),
    );

  keyOptions(
    apiKeys
      .command('create')
      .description('adds a key to a tenant; prints its secret once')
      .requiredOption('--tenant <tenant-id>', 'the tenant the key belongs to'),
  )
    .option(...JSON_OPTION)
    .action(
      action((options: KeyOptions & { tenant: string }) =>
        withStore(async (store) => {
          const key = await createApiKey(store, { tenantId: options.tenant, scopes: options.scopes, expiration: options.expires ?? null }, metadata);
          if (isLeft(key)) return refusedBy(key.left.error);
          printNewKey(options, key.right);
          return DONE;
        }),
      ),
    );

  apiKeys
    .command('revoke')
    .alias('delete')
    .description('revokes a key: it stops working within the poll interval of every instance')
    .argument('<api-key-id>', 'the key to revoke')
    .option(...JSON_OPTION)
    .action(
      action((keyId: string, options: JsonOption) =>
        withStore(async (store) => {
          const revoked = await deleteApiKey(store, keyId, metadata);
          // The decider refuses a revoked key as the resource API does (409); for the operator it is done already.
          const changed = !(isLeft(revoked) && revoked.left.kind === 'domain' && revoked.left.error._tag === 'Conflict' && revoked.left.error.reason === 'deleted');
          if (isLeft(revoked) && changed) return refusedBy(revoked.left.error);
          printRecord(options, { api_key_id: keyId, revoked: true, changed }, [
            ['api_key_id', keyId],
            ['revoked', changed ? 'now' : 'already'],
          ]);
          return DONE;
        }),
      ),
    );
};
