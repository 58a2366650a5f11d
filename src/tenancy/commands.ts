// Commands on tenants and API keys. Each is a decision on the stream's state, appended at the
// revision read (src/eventstore/handle.ts).
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { apiKey, apiKeyResourceChange, apiKeyStream, type ApiKeyEvent, type Scope } from '../../streams/apiKey.js';
import { applyChange, type Envelope } from '../../streams/resource.js';
import { tenant, tenantStream, type Command as TenantCommand, type DomainError as TenantError } from '../../streams/tenant.js';
import { handleCommand, handleInlineDecision, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore, Position } from '../eventstore/port.js';
import { generateSecret, hashSecret } from './secrets.js';

export type TenancyError =
  | AppendError
  | TenantError
  | { readonly _tag: 'ApiKeyExists'; readonly keyId: string }
  | { readonly _tag: 'ApiKeyNotFound'; readonly keyId: string };

export interface NewApiKey {
  readonly tenantId: string;
  /** The created key's resource envelope, for the resource API's create response. */
  readonly resource: Envelope;
  readonly keyId: string;
  /** Returned once; never stored. */
  readonly secret: string;
  readonly scopes: readonly Scope[];
  readonly expiration: string | null;
  readonly position: Position;
}

export interface ApiKeyRequest {
  readonly tenantId: string;
  readonly scopes: readonly Scope[];
  readonly expiration: string | null;
  /** A secret chosen by the operator (the bootstrap key); generated when absent. */
  readonly secret?: string;
  readonly keyId?: string;
  /** Resource API metadata (streams/resource.ts). */
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
}

export const createTenant = async (
  store: EventStore,
  request: { readonly name: string; readonly tenantId?: string },
  metadata: EventMetadata,
): Promise<Either<TenancyError, { tenantId: string; position: Position }>> => {
  const tenantId = request.tenantId ?? randomUUID();
  const command: TenantCommand = { type: 'CreateTenant', data: { tenantId, name: request.name, at: new Date().toISOString() } };
  const result = await handleCommand(store, tenant, tenantStream(tenantId), command, { commandId: randomUUID(), metadata });
  if (isLeft(result)) return result;
  return right({ tenantId, position: result.right.position! });
};

export const createApiKey = async (
  store: EventStore,
  request: ApiKeyRequest,
  metadata: EventMetadata,
): Promise<Either<TenancyError, NewApiKey>> => {
  const owner = await store.readStream(tenantStream(request.tenantId), { maxCount: 1 });
  if (owner._tag !== 'Found') return left({ _tag: 'TenantNotFound', tenantId: request.tenantId });
  const keyId = request.keyId ?? randomUUID();
  const secret = request.secret ?? generateSecret();
  const created: ApiKeyEvent = {
    type: 'ApiKeyCreated',
    data: {
      keyId,
      tenantId: request.tenantId,
      subjectId: randomUUID(),
      secretHash: hashSecret(secret),
      scopes: [...request.scopes],
      expiration: request.expiration,
      createdAt: new Date().toISOString(),
      ...(request.annotations ? { annotations: { ...request.annotations } } : {}),
      ...(request.labels ? { labels: { ...request.labels } } : {}),
    },
  };
  const result = await handleInlineDecision(
    store,
    apiKey,
    apiKeyStream(keyId),
    (state) => (state.status === 'none' ? right([created]) : left({ _tag: 'ApiKeyExists' as const, keyId })),
    metadata,
  );
  if (isLeft(result)) return result;
  const { scopes, expiration } = request;
  const resource = applyChange(undefined, apiKeyResourceChange(created));
  return right({ tenantId: request.tenantId, resource, keyId, secret, scopes, expiration, position: result.right.position! });
};

export const deleteApiKey = async (
  store: EventStore,
  keyId: string,
  metadata: EventMetadata,
): Promise<Either<TenancyError, { position: Position | undefined }>> => {
  const result = await handleInlineDecision(
    store,
    apiKey,
    apiKeyStream(keyId),
    (state): Either<TenancyError, ApiKeyEvent[]> => {
      if (state.status === 'none') return left({ _tag: 'ApiKeyNotFound', keyId });
      if (state.status === 'deleted') return right([]);
      return right([{ type: 'ApiKeyDeleted', data: { keyId, deletedAt: new Date().toISOString() } }]);
    },
    metadata,
  );
  return isLeft(result) ? result : right({ position: result.right.position });
};
