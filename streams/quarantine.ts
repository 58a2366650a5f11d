// Stream `quarantine-acknowledgments`: the operator's acknowledgments of events a projection set
// aside (src/readside/quarantine.ts), as a decider. A quarantine is recorded in each instance's own read
// models; the acknowledgment is recorded here, in the store, so that every instance, a rebuild and
// an instance started later all see it, and an auditor sees who accepted read models without which
// event.
//
//   not acknowledged --AcknowledgeQuarantine--> acknowledged --AcknowledgeQuarantine--> (nothing)
//
// Acknowledging again what is acknowledged records nothing and is not refused: the operator's
// intent holds, a retried `ops projections quarantine ack` succeeds, and the first acknowledgment
// (its time and actor) stays the one on record. Whether the store holds an event at the position
// is the caller's to check before the command (it reads `$all`); the position and the time come in
// the command.
import * as t from 'io-ts';
import { right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'quarantine';
export const acknowledgmentsStream = streamName(category, 'acknowledgments');

/** The event at `position` (`commit/prepare`) may stay out of the read models that set it aside. */
export const QuarantineAcknowledged = eventCodec('QuarantineAcknowledged', t.type({ position: t.string, acknowledgedAt: t.string }));
export type QuarantineAcknowledged = t.TypeOf<typeof QuarantineAcknowledged>;

export type Command = { readonly type: 'AcknowledgeQuarantine'; readonly data: { readonly position: string; readonly at: string } };

/** When each acknowledged position was first acknowledged. */
export interface State {
  readonly acknowledged: ReadonlyMap<string, string>;
}

/** Nothing refuses an acknowledgment (see the top of this file). */
export type DomainError = never;

export const initialState: State = { acknowledged: new Map() };

// Stores written before this decider may hold one position twice: the first acknowledgment counts.
export const evolve = (state: State, event: QuarantineAcknowledged): State =>
  state.acknowledged.has(event.data.position)
    ? state
    : { acknowledged: new Map([...state.acknowledged, [event.data.position, event.data.acknowledgedAt]]) };

export const decide = (command: Command, state: State): Either<DomainError, QuarantineAcknowledged[]> => {
  const { position, at } = command.data;
  if (state.acknowledged.has(position)) return right([]);
  return right([{ type: 'QuarantineAcknowledged', data: { position, acknowledgedAt: at } }]);
};

export const quarantine: Decider<Command, State, QuarantineAcknowledged, DomainError> = {
  category,
  codec: QuarantineAcknowledged,
  initialState,
  evolve,
  decide,
};
