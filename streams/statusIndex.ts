// Stream category `statusindex`: one stream per Status List entry ever handed out,
// `statusindex-<list id>.<idx>` (a tenant's own credential issuer's lists, issue 38:
// `statusindex-<tenant id>.<list id>.<idx>`, each issuer numbering its own lists), as a decider. Allocating an entry creates its stream with
// expected revision `no_stream`, so an index is given to one credential only, on any number of
// instances, and never again (draft-ietf-oauth-status-list, "Default Values and Double
// Allocation"). An entry whose credential was then not issued stays taken: it reads VALID in its
// list like any unused one.
//
// Pure: the list, the index (chosen at random by src/issuance/status/allocation.ts) and the time come in
// the command.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'statusindex';
export const statusIndexStream = (listId: number, idx: number, issuerTenantId?: string): string =>
  streamName(category, issuerTenantId === undefined ? `${listId}.${idx}` : `${issuerTenantId}.${listId}.${idx}`);

export const StatusIndexAllocated = eventCodec(
  'StatusIndexAllocated',
  t.intersection([
    t.type({
      listId: t.number,
      idx: t.number,
      /** Entries in the list: fixed when the list's first index is allocated. */
      listSize: t.number,
      offerId: t.string,
      allocatedAt: t.string,
    }),
    /** The tenant whose own credential issuer holds the list; absent: the deployment's (and in every entry recorded before issue 38). */
    t.partial({ issuerTenantId: t.string }),
  ]),
);

/** Every event a status index stream can hold. */
export const StatusIndexEvent = StatusIndexAllocated;
export type StatusIndexEvent = t.TypeOf<typeof StatusIndexEvent>;

export interface Command {
  readonly type: 'AllocateStatusIndex';
  readonly data: { readonly listId: number; readonly idx: number; readonly listSize: number; readonly offerId: string; readonly issuerTenantId?: string; readonly at: string };
}

export type Event = StatusIndexEvent;

export type DomainError = { readonly _tag: 'IndexTaken' } | { readonly _tag: 'IndexOutsideList' };

export type State = { readonly status: 'free' } | { readonly status: 'taken'; readonly offerId: string };

export const initialState: State = { status: 'free' };

export const decide = (command: Command, state: State): Either<DomainError, Event[]> => {
  const { listId, idx, listSize, offerId, issuerTenantId, at } = command.data;
  if (!Number.isSafeInteger(idx) || idx < 0 || idx >= listSize) return left({ _tag: 'IndexOutsideList' });
  if (state.status === 'taken') return left({ _tag: 'IndexTaken' });
  return right([{ type: 'StatusIndexAllocated', data: { listId, idx, listSize, offerId, allocatedAt: at, ...(issuerTenantId === undefined ? {} : { issuerTenantId }) } }]);
};

export const evolve = (_state: State, event: Event): State => ({ status: 'taken', offerId: event.data.offerId });

export const statusIndex: Decider<Command, State, Event, DomainError> = { category, codec: StatusIndexEvent, initialState, evolve, decide };
