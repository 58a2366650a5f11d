// A tenant's callback configuration: its URL and its Standard Webhooks secret, members of the
// tenant's settings (`callback_url`, `callback_secret`, src/tenantIdentity/settings.ts), the one
// place both `PUT /settings` and `ops callbacks set` write. The secret is a credential, not
// personal data, so it is sealed with the key-encryption key itself (bound to the tenant by the
// associated data) rather than with a data key: nothing needs shredding, and the deliverer opens
// it without another read of the store. A store from before settings may still hold a callback on
// the tenant stream (`TenantCallbackConfigured`): the deliverer falls back to it (deliver.ts).
import { CALLBACK_URL_CHOSEN_BY } from '../../streams/tenantSettings.js';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { Position } from '../eventstore/port.js';
import type { EventStore } from '../eventstore/port.js';
import { generateWebhookSecret } from '../config/callbacks.js';
import { Sealed } from '../../streams/dataKey.js';
import { tenant, tenantStream } from '../../streams/tenant.js';
import { loadStream } from '../eventstore/handle.js';
import { changeSettings, openCallbackSecret, sealCallbackSecret, type ChangeSettingsError } from '../tenantIdentity/settings.js';

export const sealSecret = sealCallbackSecret;
export const openSecret = openCallbackSecret;

export type ConfigureError = ChangeSettingsError;

export interface CallbackConfigured {
  readonly tenantId: string;
  readonly url: string;
  /** Set only when this call generated the secret: shown once, like an API key's. */
  readonly generatedSecret: string | undefined;
  /** Undefined when the configuration was already exactly this. */
  readonly position: Position | undefined;
}

/**
 * Sets where a tenant's callbacks go. Without `secret`, the current secret stays, or one is
 * generated for a tenant that has none.
 */
export const configureTenantCallback = async (
  store: EventStore,
  kek: Buffer,
  request: { readonly tenantId: string; readonly url: string; readonly secret?: string | undefined },
  metadata: EventMetadata,
): Promise<Either<ConfigureError, CallbackConfigured>> => {
  const { tenantId, url } = request;
  const generated = generateWebhookSecret();
  // A store from before settings: the secret its tenant stream records is the current one.
  const before = await loadStream(store, tenant, tenantStream(tenantId));
  const legacy = isLeft(before) || before.right.state.status === 'none' ? undefined : before.right.state.callback?.secret;
  let generatedSecret: string | undefined;
  const changed = await changeSettings(
    store,
    tenantId,
    (current) => {
      const set = Sealed.decode(current['callback_secret']);
      const recorded = isLeft(set) ? legacy : set.right;
      const kept = recorded === undefined ? undefined : openSecret(kek, tenantId, recorded);
      const secret = request.secret ?? kept ?? generated;
      generatedSecret = secret === generated ? generated : undefined;
      // The same secret keeps its sealed form, so setting what is already set changes nothing.
      return {
        callback_url: url,
        callback_secret: secret === kept && recorded !== undefined ? recorded : sealSecret(kek, tenantId, secret),
        // The operator's choice: delivered to as configured, like CALLBACK_URL (src/callbacks/post.ts).
        [CALLBACK_URL_CHOSEN_BY]: 'operator',
      };
    },
    metadata,
  );
  if (isLeft(changed)) return left(changed.left);
  return right({ tenantId, url, generatedSecret: changed.right.position ? generatedSecret : undefined, position: changed.right.position });
};
