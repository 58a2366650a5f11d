// Stream category `apikey`: one stream per API key, `apikey-<key id>`. Only the SHA-256 of the
// secret is ever recorded; the secret itself is shown once, when the key is created.
import * as t from 'io-ts';
import { streamName } from '../src/eventstore/port.js';
import { eventCodec, type StreamContract } from './event.js';

export const category = 'apikey';
export const apiKeyStream = (keyId: string): string => streamName(category, keyId);

/** What a key may do: `admin` operates the tenant, `connector` drives flows, `resources` the resource API. */
export const Scope = t.keyof({ admin: null, connector: null, resources: null }, 'Scope');
export type Scope = t.TypeOf<typeof Scope>;
export const allScopes: readonly Scope[] = ['admin', 'connector', 'resources'];

export const ApiKeyCreated = eventCodec(
  'ApiKeyCreated',
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
);
export const ApiKeyDeleted = eventCodec('ApiKeyDeleted', t.type({ keyId: t.string, deletedAt: t.string }));

/** Every event an API key stream can hold. */
export const ApiKeyEvent = t.union([ApiKeyCreated, ApiKeyDeleted]);
export type ApiKeyEvent = t.TypeOf<typeof ApiKeyEvent>;

export type ApiKeyState =
  | { readonly status: 'none' }
  | { readonly status: 'active' | 'deleted'; readonly keyId: string; readonly tenantId: string };

export const apiKey: StreamContract<ApiKeyState, ApiKeyEvent> = {
  category,
  codec: ApiKeyEvent,
  initialState: { status: 'none' },
  evolve: (state, event) => {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { status: 'active', keyId: event.data.keyId, tenantId: event.data.tenantId };
      case 'ApiKeyDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
    }
  },
};
