// Stream category `supportrequest`: one stream per support request a tenant sends,
// `supportrequest-<request id>`. Requests are often about personal data (a data dump, a
// deletion, a rectification), so the message is sealed with the request's own data key
// (owner `supportrequest.<request id>`); destroying that key erases it. As a decider:
//
//   none --CreateSupportRequest--> created
//
// Pure: the request's id, the time and the message, already sealed, come in the command.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { eventCodec, type Decider } from './event.js';

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

type Created = SupportRequestEvent['data'];

export type Command = { readonly type: 'CreateSupportRequest'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } };

export type DomainError = { readonly _tag: 'SupportRequestExists'; readonly requestId: string };

export const initialState: SupportRequestState = { status: 'none' };

export const evolve = (_state: SupportRequestState, event: SupportRequestEvent): SupportRequestState => ({ status: 'created', tenantId: event.data.tenantId });

export const decide = (command: Command, state: SupportRequestState): Either<DomainError, SupportRequestEvent[]> => {
  const { at, ...created } = command.data;
  if (state.status !== 'none') return left({ _tag: 'SupportRequestExists', requestId: created.requestId });
  return right([{ type: 'SupportRequestCreated', data: { ...created, createdAt: at } }]);
};

export const supportRequest: Decider<Command, SupportRequestState, SupportRequestEvent, DomainError> = {
  category,
  codec: SupportRequestEvent,
  initialState,
  evolve,
  decide,
};
