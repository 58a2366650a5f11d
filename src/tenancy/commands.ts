// Commands on tenants and API keys: the ids, secrets and time they need, then the category's
// decider (streams/tenant.ts, streams/apiKey.ts) run by the command handler.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { apiKey, apiKeyStream, type Command as ApiKeyCommand, type DomainError as ApiKeyError, type Scope } from '../../streams/apiKey.js';
import type { Envelope } from '../../streams/resource.js';
import { tenant, tenantStream, type Command as TenantCommand, type DomainError as TenantError } from '../../streams/tenant.js';
import { handleCommand, type CommandError, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Position } from '../eventstore/port.js';
import { generateSecret, hashSecret } from './secrets.js';

/**
 * Why a tenancy command wrote nothing, as the command handler tags it: the decider refused
 * (`domain`) or the store did (`store`: a lost race, a deleted stream). An API key's creation is
 * also refused when its tenant does not exist (the tenant's TenantNotFound, as `domain`).
 */
export type TenantCommandError = CommandError<TenantError>;
export type ApiKeyCommandError = CommandError<ApiKeyError>;
export type NewApiKeyError = CommandError<ApiKeyError | Extract<TenantError, { readonly _tag: 'TenantNotFound' }>>;

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
): Promise<Either<TenantCommandError, { tenantId: string; position: Position }>> => {
  const tenantId = request.tenantId ?? randomUUID();
  const command: TenantCommand = { type: 'CreateTenant', data: { tenantId, name: request.name, at: new Date().toISOString() } };
  const result = await handleCommand(store, tenant, tenantStream(tenantId), command, { commandId: randomUUID(), metadata });
  if (isLeft(result)) return left(result.left);
  return right({ tenantId, position: result.right.position! });
};

export const createApiKey = async (
  store: EventStore,
  request: ApiKeyRequest,
  metadata: EventMetadata,
): Promise<Either<NewApiKeyError, NewApiKey>> => {
  const owner = await store.readStream(tenantStream(request.tenantId), { maxCount: 1 });
  if (owner._tag !== 'Found') return left({ kind: 'domain', error: { _tag: 'TenantNotFound', tenantId: request.tenantId } });
  const keyId = request.keyId ?? randomUUID();
  const secret = request.secret ?? generateSecret();
  const command: ApiKeyCommand = {
    type: 'CreateApiKey',
    data: {
      keyId,
      tenantId: request.tenantId,
      subjectId: randomUUID(),
      secretHash: hashSecret(secret),
      scopes: [...request.scopes],
      expiration: request.expiration,
      at: new Date().toISOString(),
      ...(request.annotations ? { annotations: { ...request.annotations } } : {}),
      ...(request.labels ? { labels: { ...request.labels } } : {}),
    },
  };
  const result = await handleCommand(store, apiKey, apiKeyStream(keyId), command, { commandId: randomUUID(), metadata });
  if (isLeft(result)) return left(result.left);
  const { scopes, expiration } = request;
  const resource = result.right.state.status === 'none' ? undefined : result.right.state.resource;
  if (!resource) throw new Error('an API key without its envelope after its creation');
  return right({ tenantId: request.tenantId, resource, keyId, secret, scopes, expiration, position: result.right.position! });
};

export const deleteApiKey = async (
  store: EventStore,
  keyId: string,
  metadata: EventMetadata,
): Promise<Either<ApiKeyCommandError, { position: Position }>> => {
  const command: ApiKeyCommand = { type: 'DeleteApiKey', data: { keyId, at: new Date().toISOString() } };
  const result = await handleCommand(store, apiKey, apiKeyStream(keyId), command, { commandId: randomUUID(), metadata });
  if (isLeft(result)) return left(result.left);
  return right({ position: result.right.position! });
};
