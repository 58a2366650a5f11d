// Stream category `tenant`: one stream per tenant, `tenant-<tenant id>`, as a decider.
//
//   none --CreateTenant--> active --ConfigureTenantCallback--> active (with a callback)
//                                 --ConfigureTenantAuthentication--> active (with an authentication URL)
//
// Pure: the time, the tenant's id, a freshly generated webhook secret and the key that seals
// secrets (as a SecretBox) come in the command.
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

/** Seals and opens a tenant's webhook secret with the key-encryption key (src/callbacks/tenantCallback.ts). */
export interface SecretBox {
  readonly seal: (secret: string) => Sealed;
  readonly open: (sealed: Sealed) => string;
}

export type Command =
  | { readonly type: 'CreateTenant'; readonly data: { readonly tenantId: string; readonly name: string; readonly at: string } }
  | {
      readonly type: 'ConfigureTenantCallback';
      readonly data: {
        readonly tenantId: string;
        readonly url: string;
        /** The secret asked for; without one the current secret stays, or `generated` is used. */
        readonly secret: string | undefined;
        readonly generated: string;
        readonly box: SecretBox;
        readonly at: string;
      };
    }
  | { readonly type: 'ConfigureTenantAuthentication'; readonly data: { readonly tenantId: string; readonly url: string; readonly at: string } };

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
  switch (command.type) {
    case 'CreateTenant': {
      const { tenantId, name, at } = command.data;
      if (state.status !== 'none') return left({ _tag: 'TenantExists', tenantId });
      return right([{ type: 'TenantCreated', data: { tenantId, name, createdAt: at } }]);
    }
    case 'ConfigureTenantCallback': {
      const { tenantId, url, box, at } = command.data;
      if (state.status === 'none') return left({ _tag: 'TenantNotFound', tenantId });
      const current = state.callback ? box.open(state.callback.secret) : undefined;
      const secret = command.data.secret ?? current ?? command.data.generated;
      // Setting what is already set appends nothing, so instances applying CALLBACK_URL at start agree.
      if (state.callback?.url === url && current === secret) return right([]);
      return right([{ type: 'TenantCallbackConfigured', data: { tenantId, url, secret: box.seal(secret), configuredAt: at } }]);
    }
    case 'ConfigureTenantAuthentication': {
      const { tenantId, url, at } = command.data;
      if (state.status === 'none') return left({ _tag: 'TenantNotFound', tenantId });
      if (state.authenticationUrl === url) return right([]);
      return right([{ type: 'TenantAuthenticationConfigured', data: { tenantId, url, configuredAt: at } }]);
    }
  }
};

export const tenant: Decider<Command, TenantState, TenantEvent, DomainError> = { category, codec: TenantEvent, initialState, evolve, decide };
