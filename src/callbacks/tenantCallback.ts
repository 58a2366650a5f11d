// A tenant's callback configuration: its URL and its Standard Webhooks secret. The secret is a
// credential, not personal data, so it is sealed with the key-encryption key itself (bound to the
// tenant by the associated data) rather than with a data key: nothing needs shredding, and the
// deliverer opens it without another read of the store.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Sealed } from '../../streams/dataKey.js';
import { tenant, tenantStream, type Command, type DomainError } from '../../streams/tenant.js';
import { open, seal } from '../crypto/seal.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore, Position } from '../eventstore/port.js';
import { generateWebhookSecret } from '../config/callbacks.js';

const aad = (tenantId: string): string => `tenant-callback-secret/${tenantId}`;

export const sealSecret = (kek: Buffer, tenantId: string, secret: string): Sealed => seal(kek, Buffer.from(secret, 'utf8'), aad(tenantId));

export const openSecret = (kek: Buffer, tenantId: string, sealed: Sealed): string => open(kek, sealed, aad(tenantId)).toString('utf8');

export type ConfigureError = AppendError | DomainError;

export interface CallbackConfigured {
  readonly tenantId: string;
  readonly url: string;
  /** Set only when this call generated the secret: shown once, like an API key's. */
  readonly generatedSecret: string | undefined;
  /** Undefined when the configuration was already exactly this. */
  readonly position: Position | undefined;
}

/** Lost races decided again: several instances may apply CALLBACK_URL at once. */
const RACE_RETRIES = 2;

/**
 * Sets where a tenant's callbacks go. Without `secret`, the current secret stays, or one is
 * generated for a tenant that has none (streams/tenant.ts decides).
 */
export const configureTenantCallback = async (
  store: EventStore,
  kek: Buffer,
  request: { readonly tenantId: string; readonly url: string; readonly secret?: string | undefined },
  metadata: EventMetadata,
): Promise<Either<ConfigureError, CallbackConfigured>> => {
  const { tenantId, url } = request;
  const box = { seal: (secret: string) => sealSecret(kek, tenantId, secret), open: (sealed: Sealed) => openSecret(kek, tenantId, sealed) };
  const generated = generateWebhookSecret();
  const command: Command = { type: 'ConfigureTenantCallback', data: { tenantId, url, secret: request.secret, generated, box, at: new Date().toISOString() } };
  const result = await handleCommand(store, tenant, tenantStream(tenantId), command, { commandId: randomUUID(), metadata, retries: RACE_RETRIES });
  if (isLeft(result)) {
    switch (result.left.kind) {
      case 'domain':
      case 'store':
        return left(result.left.error);
    }
  }
  const configured = result.right.events.find((e) => e.type === 'TenantCallbackConfigured');
  const recorded = configured?.type === 'TenantCallbackConfigured' ? configured.data.secret : undefined;
  const generatedSecret = request.secret === undefined && recorded && box.open(recorded) === generated ? generated : undefined;
  return right({ tenantId, url, generatedSecret, position: result.right.position });
};
