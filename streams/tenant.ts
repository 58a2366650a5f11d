// Stream category `tenant`: one stream per tenant, `tenant-<tenant id>`.
import * as t from 'io-ts';
import { streamName } from '../src/eventstore/port.js';
import { eventCodec, type StreamContract } from './event.js';

export const category = 'tenant';
export const tenantStream = (tenantId: string): string => streamName(category, tenantId);

export const TenantCreated = eventCodec('TenantCreated', t.type({ tenantId: t.string, name: t.string, createdAt: t.string }));

/** Every event a tenant stream can hold. */
export const TenantEvent = TenantCreated;
export type TenantEvent = t.TypeOf<typeof TenantEvent>;

export type TenantState = { readonly status: 'none' } | { readonly status: 'active'; readonly tenantId: string; readonly name: string };

export const tenant: StreamContract<TenantState, TenantEvent> = {
  category,
  codec: TenantEvent,
  initialState: { status: 'none' },
  evolve: (_state, event) => ({ status: 'active', tenantId: event.data.tenantId, name: event.data.name }),
};
