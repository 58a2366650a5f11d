// Stream category `apikey`: one stream per API key, `apikey-<key id>`. Only the SHA-256 of the
// secret is ever recorded; the secret itself is shown once, when the key is created.
// API keys are also the `api-keys` kind of the resource API: every event is one revision of the
// key's resource envelope (streams/resource.ts). As a decider:
//
//   none --CreateApiKey--> live --Delete / DeleteApiKey--> deleted --Restore--> live
//
// Pure: the ids, the secret's hash and the time come in the command. Deleting a deleted key is a
// 409 (Conflict) whether the resource API or the operator asks: one rule (streams/resource.ts).
import * as t from 'io-ts';
import { left } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { envelopeOf, sharedEvents, StringMap, resourceKind, type KindCommand, type ResourceChange, type ResourceDecider, type ResourceError } from './resource.js';

export const category = 'apikey';
export const apiKeyStream = (keyId: string): string => streamName(category, keyId);

/** What a key may do: `admin` operates the tenant, `connector` drives flows, `resources` the resource API. */
export const Scope = t.keyof({ admin: null, connector: null, resources: null }, 'Scope');
export type Scope = t.TypeOf<typeof Scope>;
export const allScopes: readonly Scope[] = ['admin', 'connector', 'resources'];

export const ApiKeyCreated = eventCodec(
  'ApiKeyCreated',
  t.intersection([
    t.type({
      keyId: t.string,
      tenantId: t.string,
      subjectId: t.string,
      /** base64url SHA-256 of the secret. */
      secretHash: t.string,
      scopes: t.array(Scope),
      /** ISO 8601; null for a key that does not expire. */
      expiration: t.union([t.string, t.null]),
      createdAt: t.string,
    }),
    // Absent on keys created before the resource API: read as empty.
    t.partial({ annotations: StringMap, labels: StringMap }),
  ]),
);
/**
 * The resource API's shared changes: ApiKeyAnnotationsUpdated, ApiKeyLabelsUpdated, ApiKeyDeleted
 * (revokes the key: it no longer authenticates) and ApiKeyRestored (re-enables a deleted key with
 * its old secret), each `{keyId, ...}` (streams/resource.ts).
 */
const shared = sharedEvents('ApiKey', 'keyId');

/** Every event an API key stream can hold. */
export const ApiKeyEvent = t.union([ApiKeyCreated, ...shared.codecs]);
export type ApiKeyEvent = t.TypeOf<typeof ApiKeyEvent>;

export const API_KEY_KIND = { name: 'api-key', version: 1 } as const;

/** What each event does to the key's resource envelope. */
export const apiKeyResourceChange = (event: ApiKeyEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  const d = event.data;
  return {
    op: 'created',
    id: d.keyId,
    tenantId: d.tenantId,
    kind: API_KEY_KIND,
    at: d.createdAt,
    annotations: d.annotations ?? {},
    labels: d.labels ?? {},
    // Never the secret: only the create response carries it.
    data: { expiration: d.expiration, subject_id: d.subjectId },
  };
};

type Created = Extract<ApiKeyEvent, { type: 'ApiKeyCreated' }>['data'];

/** POST /api-keys, or the operator creating a tenant's key. */
export type CreateApiKey = { readonly type: 'CreateApiKey'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } };

/** The API-key kind's rules: created once, then the changes every kind shares (streams/resource.ts). */
export const apiKeyResource = resourceKind<ApiKeyEvent, CreateApiKey>({
  category,
  codec: ApiKeyEvent,
  changeOf: apiKeyResourceChange,
  create: { type: 'CreateApiKey', created: ({ data: { at, ...created } }) => ({ type: 'ApiKeyCreated', data: { ...created, createdAt: at } }) },
  shared: shared.events,
});

export type Command =
  | KindCommand<CreateApiKey, never>
  /** The operator revokes a key (the ops tool): for the key's own tenant, without If-Match. */
  | { readonly type: 'DeleteApiKey'; readonly data: { readonly keyId: string; readonly at: string } };

export type DomainError = ResourceError | { readonly _tag: 'ApiKeyNotFound'; readonly keyId: string };

/**
 * The operator's delete is the resource API's delete: the same rule, so deleting a deleted key is
 * the same 409 (`Conflict`, `deleted`) whoever asks.
 */
export const apiKey: ResourceDecider<ApiKeyEvent, Command, DomainError> = {
  ...apiKeyResource,
  decide: (command, state) => {
    if (command.type !== 'DeleteApiKey') return apiKeyResource.decide(command, state);
    const { keyId, at } = command.data;
    const current = envelopeOf(state);
    if (!current) return left({ _tag: 'ApiKeyNotFound', keyId });
    return apiKeyResource.decide({ type: 'Delete', data: { tenantId: current.tenantId, id: keyId, ifMatch: () => true, at } }, state);
  },
};
