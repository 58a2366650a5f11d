// Stream category `tenant`: one stream per tenant, `tenant-<tenant id>`.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { eventCodec, type StreamContract } from './event.js';

export const category = 'tenant';
export const tenantStream = (tenantId: string): string => streamName(category, tenantId);

export const TenantCreated = eventCodec('TenantCreated', t.type({ tenantId: t.string, name: t.string, createdAt: t.string }));

/**
 * Where the tenant's callbacks go and the Standard Webhooks secret that signs them. The secret is
 * sealed with the key-encryption key (src/callbacks/tenantCallback.ts), never recorded in clear.
 */
export const TenantCallbackConfigured = eventCodec(
  'TenantCallbackConfigured',
  t.type({ tenantId: t.string, url: t.string, secret: Sealed, configuredAt: t.string }),
);

/** Every event a tenant stream can hold. */
export const TenantEvent = t.union([TenantCreated, TenantCallbackConfigured]);
export type TenantEvent = t.TypeOf<typeof TenantEvent>;

export interface TenantCallback {
  readonly url: string;
  readonly secret: Sealed;
}

export type TenantState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly tenantId: string; readonly name: string; readonly callback: TenantCallback | null };

export const tenant: StreamContract<TenantState, TenantEvent> = {
  category,
  codec: TenantEvent,
  initialState: { status: 'none' },
  evolve: (state, event) => {
    switch (event.type) {
      case 'TenantCreated':
        return { status: 'active', tenantId: event.data.tenantId, name: event.data.name, callback: null };
      case 'TenantCallbackConfigured':
        return state.status === 'none' ? state : { ...state, callback: { url: event.data.url, secret: event.data.secret } };
    }
  },
};
