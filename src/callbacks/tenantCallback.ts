// A tenant's callback configuration: its URL and its Standard Webhooks secret. The secret is a
// credential, not personal data, so it is sealed with the key-encryption key itself (bound to the
// tenant by the associated data) rather than with a data key: nothing needs shredding, and the
// deliverer opens it without another read of the store.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Sealed } from '../../streams/dataKey.js';
import { tenant, tenantStream, type TenantEvent } from '../../streams/tenant.js';
import { open, seal } from '../crypto/seal.js';
import { handleInlineDecision, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore, Position } from '../eventstore/port.js';
import { generateWebhookSecret } from './signature.js';

const aad = (tenantId: string): string => `tenant-callback-secret/${tenantId}`;

export const sealSecret = (kek: Buffer, tenantId: string, secret: string): Sealed => seal(kek, Buffer.from(secret, 'utf8'), aad(tenantId));

export const openSecret = (kek: Buffer, tenantId: string, sealed: Sealed): string => open(kek, sealed, aad(tenantId)).toString('utf8');

export type ConfigureError = AppendError | { readonly _tag: 'TenantNotFound'; readonly tenantId: string };

export interface CallbackConfigured {
  readonly tenantId: string;
  readonly url: string;
  /** Set only when this call generated the secret: shown once, like an API key's. */
  readonly generatedSecret: string | undefined;
  /** Undefined when the configuration was already exactly this. */
  readonly position: Position | undefined;
}

/** How often a configuration is retried after losing a race with a concurrent writer. */
const RACE_RETRIES = 3;

/**
 * Sets where a tenant's callbacks go. Without `secret`, the current secret stays, or one is
 * generated for a tenant that has none. Setting what is already set appends nothing, so several
 * instances applying CALLBACK_URL at start agree without duplicates.
 */
export const configureTenantCallback = async (
  store: EventStore,
  kek: Buffer,
  request: { readonly tenantId: string; readonly url: string; readonly secret?: string | undefined },
  metadata: EventMetadata,
): Promise<Either<ConfigureError, CallbackConfigured>> => {
  const { tenantId, url } = request;
  for (let attempt = 1; ; attempt++) {
    let generatedSecret: string | undefined;
    const result = await handleInlineDecision(
      store,
      tenant,
      tenantStream(tenantId),
      (state): Either<ConfigureError, TenantEvent[]> => {
        if (state.status === 'none') return left({ _tag: 'TenantNotFound', tenantId });
        const current = state.callback ? openSecret(kek, tenantId, state.callback.secret) : undefined;
        const secret = request.secret ?? current ?? (generatedSecret = generateWebhookSecret());
        if (state.callback?.url === url && current === secret) return right([]);
        const configuredAt = new Date().toISOString();
        return right([{ type: 'TenantCallbackConfigured', data: { tenantId, url, secret: sealSecret(kek, tenantId, secret), configuredAt } }]);
      },
      metadata,
    );
    if (isLeft(result)) {
      if (result.left._tag === 'WrongExpectedRevision' && attempt < RACE_RETRIES) continue;
      return result;
    }
    return right({ tenantId, url, generatedSecret, position: result.right.position });
  }
};
