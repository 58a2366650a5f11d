// Stream category `credentialstatus`: the status of what was issued under one credential offer,
// `credentialstatus-<offer id>`, as a decider. The credential endpoint allocates each issued
// credential's Status List entry (draft-ietf-oauth-status-list: a `uri` and an `idx`) before the
// credential is signed; the integrator then revokes, suspends or reinstates them all at once.
// Every change is one event with an id of its own, which src/callbacks translates into an
// Issuance Event (REVOKED, SUSPENDED, REINSTATED) whose `eventId` is that id, so each change is
// delivered, however often a status recurs.
// The Status List Token served at each `uri` is a projection of these events
// (projections/statusLists.ts).
//
//   none --AllocateCredentialStatus--> valid --SetCredentialStatus(suspended)--> suspended
//   valid|suspended --SetCredentialStatus(revoked)--> revoked (final)
//   suspended --SetCredentialStatus(valid)--> valid (CredentialReinstated)
//
// Pure: the time, the change's id and the allocated entries come in the command.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { readingEmbeddedCallback, type EmbeddedCallback } from './embeddedCallback.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'credentialstatus';
export const credentialStatusStream = (offerId: string): string => streamName(category, offerId);

/** What the integrator sets: VALID, INVALID (revoked) or SUSPENDED in the Status List. */
export const CredentialStatus = t.keyof({ valid: null, suspended: null, revoked: null }, 'CredentialStatus');
export type CredentialStatus = t.TypeOf<typeof CredentialStatus>;

/**
 * A Referenced Token's `status.status_list`, with the list it lives in. `issuerTenantId`: the tenant
 * whose own credential issuer holds the list (issue 38); absent for the deployment's issuer's lists.
 */
export const StatusReference = t.intersection([t.type({ listId: t.number, idx: t.number, uri: t.string }), t.partial({ issuerTenantId: t.string })], 'StatusReference');
export type StatusReference = t.TypeOf<typeof StatusReference>;

export const CredentialStatusAllocated = eventCodec(
  'CredentialStatusAllocated',
  t.type({ offerId: t.string, tenantId: t.string, references: t.array(StatusReference), allocatedAt: t.string }),
);

/** Changes recorded before callbacks were translated name the tenant only in their callback. */
const embedded = (callback: EmbeddedCallback) => ({ tenantId: callback.tenantId });

const change = <Type extends string>(type: Type) =>
  eventCodec(type, readingEmbeddedCallback(t.type({ offerId: t.string, tenantId: t.string, changeId: t.string, at: t.string }), embedded));

export const CredentialSuspended = change('CredentialSuspended');
export const CredentialRevoked = change('CredentialRevoked');
export const CredentialReinstated = change('CredentialReinstated');

/** Every event a credential-status stream can hold. */
export const CredentialStatusEvent = t.union([CredentialStatusAllocated, CredentialSuspended, CredentialRevoked, CredentialReinstated]);
export type CredentialStatusEvent = t.TypeOf<typeof CredentialStatusEvent>;

export type Command =
  | {
      readonly type: 'AllocateCredentialStatus';
      readonly data: { readonly offerId: string; readonly tenantId: string; readonly references: readonly StatusReference[]; readonly at: string };
    }
  | {
      readonly type: 'SetCredentialStatus';
      readonly data: { readonly status: CredentialStatus; readonly changeId: string; readonly at: string };
    };

export type Event = CredentialStatusEvent;

export type DomainError =
  /** Nothing with a status has been issued under the offer (yet). */
  | { readonly _tag: 'NothingIssued' }
  /** A revoked credential stays revoked. */
  | { readonly _tag: 'RevocationIsFinal' }
  /** The offer's credentials already have their entries. */
  | { readonly _tag: 'AlreadyAllocated' };

export type State =
  | { readonly status: 'none' }
  | {
      readonly status: CredentialStatus;
      readonly offerId: string;
      readonly tenantId: string;
      readonly references: readonly StatusReference[];
    };

export const initialState: State = { status: 'none' };

type Change = 'CredentialSuspended' | 'CredentialRevoked' | 'CredentialReinstated';

const changeTo = (from: CredentialStatus, to: CredentialStatus): Change | undefined => {
  if (from === to) return undefined;
  if (to === 'revoked') return 'CredentialRevoked';
  return to === 'suspended' ? 'CredentialSuspended' : 'CredentialReinstated';
};

export const decide = (command: Command, state: State): Either<DomainError, Event[]> => {
  switch (command.type) {
    case 'AllocateCredentialStatus': {
      if (state.status !== 'none') return left({ _tag: 'AlreadyAllocated' });
      const { offerId, tenantId, references, at } = command.data;
      return right([{ type: 'CredentialStatusAllocated', data: { offerId, tenantId, references: [...references], allocatedAt: at } }]);
    }
    case 'SetCredentialStatus': {
      if (state.status === 'none') return left({ _tag: 'NothingIssued' });
      const { status, changeId, at } = command.data;
      if (state.status === 'revoked' && status !== 'revoked') return left({ _tag: 'RevocationIsFinal' });
      // Setting the status it has is answered as done: PUT is idempotent, and nothing changed to tell.
      const type = changeTo(state.status, status);
      if (type === undefined) return right([]);
      return right([{ type, data: { offerId: state.offerId, tenantId: state.tenantId, changeId, at } }]);
    }
  }
};

export const evolve = (state: State, event: Event): State => {
  if (event.type === 'CredentialStatusAllocated') {
    const { offerId, tenantId, references } = event.data;
    return { status: 'valid', offerId, tenantId, references };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'CredentialSuspended':
      return { ...state, status: 'suspended' };
    case 'CredentialRevoked':
      return { ...state, status: 'revoked' };
    case 'CredentialReinstated':
      return { ...state, status: 'valid' };
  }
};

export const credentialStatus: Decider<Command, State, Event, DomainError> = { category, codec: CredentialStatusEvent, initialState, evolve, decide };
