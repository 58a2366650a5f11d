// `callbacks set`: where a tenant's callbacks go, and the secret that signs them. A secret the tool
// generates is printed once; the stream holds it sealed with the key-encryption key.
import { InvalidArgumentError, type Command } from 'commander';
import { isLeft } from 'fp-ts/lib/Either.js';
import { configureTenantCallback } from '../src/callbacks/tenantCallback.js';
import { isCallbackUrl, isWebhookSecret } from '../src/config/callbacks.js';
import { openKeyStore } from '../src/app/keyStore.js';
import { action, DONE, log, metadata, refuse, refusedBy, withStore } from './action.js';
import { JSON_OPTION, printNote, printRecord, type JsonOption } from './output.js';

/** An absolute http(s) URL without credentials or fragment (also a tenant's authentication page). */
export const callbackUrlArgument = (value: string): string => {
  if (!isCallbackUrl(value)) throw new InvalidArgumentError('expected an absolute http(s) URL without credentials or fragment');
  return value;
};

// Checked in the action, not by an argument parser: commander would quote the refused value.
// (Not `<whsec_...>`: commander reads a placeholder ending in ... as a variadic option.)
const SECRET_REFUSED = "error: option '--secret <secret>' is invalid (its value is not shown): expected whsec_ followed by 24 to 64 bytes in base64";

export const registerCallbacks = (program: Command): void => {
  const callbacks = program.command('callbacks').description("tenants' callback URLs and signing secrets");

  callbacks
    .command('set')
    .description('where the tenant\'s callbacks go; without --secret the current secret stays (or one is generated and printed once)')
    .requiredOption('--tenant <tenant-id>', 'the tenant')
    .requiredOption('--url <url>', 'absolute http(s) URL of the receiver', callbackUrlArgument)
    .option('--secret <secret>', 'the Standard Webhooks signing secret to use, whsec_ and 24 to 64 bytes in base64')
    .option(...JSON_OPTION)
    .action(
      action(async (options: JsonOption & { tenant: string; url: string; secret?: string }) => {
        if (options.secret !== undefined && !isWebhookSecret(options.secret)) return refuse(SECRET_REFUSED);
        return withStore(async (store, config) => {
          const keys = await openKeyStore(config, log);
          keys.close();
          const configured = await configureTenantCallback(store, keys.derivationRoot, { tenantId: options.tenant, url: options.url, secret: options.secret }, metadata);
          if (isLeft(configured)) return refusedBy(configured.left);
          const { tenantId, url, generatedSecret, position } = configured.right;
          const changed = position !== undefined;
          printRecord(options, { tenant_id: tenantId, url, changed, ...(generatedSecret ? { secret: generatedSecret } : {}) }, [
            ['tenant_id', tenantId],
            ['url', url],
            ['changed', changed ? 'yes' : 'no (already so)'],
            ...(generatedSecret ? [['secret', generatedSecret] as const] : []),
          ]);
          if (generatedSecret) printNote(options, 'The secret is shown this once: the store holds it sealed.');
          return DONE;
        });
      }),
    );
};
