// Stream category `tenant`: one stream per tenant, `tenant-<tenant id>`, as a decider.
//
//   none --CreateTenant--> active
//
// Pure: the time and the tenant's id come in the command. A tenant's callback and authentication
// URL are members of its settings (streams/tenantSettings.ts); a store from before settings may
// hold them here (TenantCallbackConfigured, TenantAuthenticationConfigured), which the features
// still read where the settings set none.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { eventCodec, type Decider } from './event.js';

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

/** Where the tenant's users authenticate in the authorization code flow (OpenID4VCI). */
export const TenantAuthenticationConfigured = eventCodec('TenantAuthenticationConfigured', t.type({ tenantId: t.string, url: t.string, configuredAt: t.string }));

/** Every event a tenant stream can hold. */
export const TenantEvent = t.union([TenantCreated, TenantCallbackConfigured, TenantAuthenticationConfigured]);
export type TenantEvent = t.TypeOf<typeof TenantEvent>;

export interface TenantCallback {
  readonly url: string;
  readonly secret: Sealed;
}

export type TenantState =
  | { readonly status: 'none' }
  | {
      readonly status: 'active';
      readonly tenantId: string;
      readonly name: string;
      readonly callback: TenantCallback | null;
      readonly authenticationUrl: string | null;
    };

export type Command = { readonly type: 'CreateTenant'; readonly data: { readonly tenantId: string; readonly name: string; readonly at: string } };

export type DomainError = { readonly _tag: 'TenantExists'; readonly tenantId: string } | { readonly _tag: 'TenantNotFound'; readonly tenantId: string };

export const initialState: TenantState = { status: 'none' };

export const evolve = (state: TenantState, event: TenantEvent): TenantState => {
  switch (event.type) {
    case 'TenantCreated':
      return { status: 'active', tenantId: event.data.tenantId, name: event.data.name, callback: null, authenticationUrl: null };
    case 'TenantCallbackConfigured':
      return state.status === 'none' ? state : { ...state, callback: { url: event.data.url, secret: event.data.secret } };
    case 'TenantAuthenticationConfigured':
      return state.status === 'none' ? state : { ...state, authenticationUrl: event.data.url };
  }
};

export const decide = (command: Command, state: TenantState): Either<DomainError, TenantEvent[]> => {
  const { tenantId, name, at } = command.data;
  if (state.status !== 'none') return left({ _tag: 'TenantExists', tenantId });
  return right([{ type: 'TenantCreated', data: { tenantId, name, createdAt: at } }]);
};

export const tenant: Decider<Command, TenantState, TenantEvent, DomainError> = { category, codec: TenantEvent, initialState, evolve, decide };
