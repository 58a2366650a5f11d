// Given / when / then for deciders: the events a stream already holds, a command, and what
// `decide` answers on the state they fold to (the events it records, or why it refuses).
import type { Either } from 'fp-ts/lib/Either.js';
import type { Decider, Event } from '../../streams/event.js';

type Rules<Command, State, E extends Event, DomainError> = Pick<Decider<Command, State, E, DomainError>, 'decide' | 'evolve' | 'initialState'>;

/** The state `given` folds to. */
export const stateAfter =
  <State, E extends Event>(decider: Pick<Rules<never, State, E, never>, 'evolve' | 'initialState'>) =>
  (given: readonly E[]): State =>
    given.reduce(decider.evolve, decider.initialState);

/** `scenario(given, when)`: the decision of `when` on the stream `given` holds. */
export const givenWhen =
  <Command, State, E extends Event, DomainError>(decider: Rules<Command, State, E, DomainError>) =>
  (given: readonly E[], when: Command): Either<DomainError, readonly E[]> =>
    decider.decide(when, stateAfter(decider)(given));
