// Stream category `supportrequest`: one stream per support request a tenant sends,
// `supportrequest-<request id>`. Requests are often about personal data (a data dump, a
// deletion, a rectification), so the message is sealed with the request's own data key
// (owner `supportrequest.<request id>`); destroying that key erases it.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { eventCodec, type StreamContract } from './event.js';

export const category = 'supportrequest';
export const supportRequestStream = (requestId: string): string => streamName(category, requestId);
export const supportRequestKeyOwner = (requestId: string): string => `supportrequest.${requestId}`;

export const SupportRequestType = t.keyof({ DATA_DUMP: null, DELETION: null, OTHER: null, RECTIFICATION: null }, 'SupportRequestType');

export const SupportRequestCreated = eventCodec(
  'SupportRequestCreated',
  t.type({ requestId: t.string, tenantId: t.string, type: SupportRequestType, message: Sealed, createdAt: t.string }),
);

/** Every event a support request stream can hold. */
export const SupportRequestEvent = SupportRequestCreated;
export type SupportRequestEvent = t.TypeOf<typeof SupportRequestEvent>;

export type SupportRequestState = { readonly status: 'none' } | { readonly status: 'created'; readonly tenantId: string };

export const supportRequest: StreamContract<SupportRequestState, SupportRequestEvent> = {
  category,
  codec: SupportRequestEvent,
  initialState: { status: 'none' },
  evolve: (_state, event) => ({ status: 'created', tenantId: event.data.tenantId }),
};
