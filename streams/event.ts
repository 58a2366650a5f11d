// What every stream module shares: an event is a typed `{ type, data }` pair, read back only
// through its category's io-ts codec, and `evolve` folds a stream into state.
import * as t from 'io-ts';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { streamRef, type RecordedEvent } from './kernel.js';

export interface Event<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

/** A codec for one event type: `{ type: literal, data: codec }`. */
export const eventCodec = <Type extends string, Data extends t.Mixed>(type: Type, data: Data) =>
  t.type({ type: t.literal(type), data }, type);

/** A stream category's contract: its name, its events' codec and its fold. */
export interface StreamContract<State, E extends Event> {
  readonly category: string;
  readonly codec: t.Decoder<unknown, E>;
  readonly initialState: State;
  readonly evolve: (state: State, event: E) => State;
}

/**
 * A stream category's rules: its contract plus a pure `decide` from a command and the folded state
 * to the events that record it, or the typed reason it is refused. Time, ids and keys come in the
 * command, so the same command on the same state always decides the same events.
 */
export interface Decider<Command, State, E extends Event, DomainError> extends StreamContract<State, E> {
  readonly decide: (command: Command, state: State) => Either<DomainError, readonly E[]>;
}

/** A stored event that does not decode: a broken contract, not bad input. */
export class BrokenContract extends Error {
  override readonly name = 'BrokenContract';

  constructor(
    message: string,
    /** Where decoding failed and what was expected there, without the values found (event data). */
    readonly failures: readonly string[],
  ) {
    super(message);
  }
}

/** `data.schema: expected JsonObject`, once per place, for the failures of one decode. */
const failuresOf = (errors: t.Errors): string[] => [
  ...new Set(
    errors.map((e) => {
      const path = e.context.map((c) => c.key).filter((key) => key !== '').join('.');
      return `${path || '(event)'}: expected ${e.context[e.context.length - 1]?.type.name ?? 'another value'}`;
    }),
  ),
];

/**
 * Reads a recorded event back through its codec. A stored event that does not decode throws
 * BrokenContract with the stream (as logs show it), revision and failures, never the values.
 */
export const decodeRecorded = <E extends Event>(codec: t.Decoder<unknown, E>, recorded: RecordedEvent): E => {
  const result = codec.decode({ type: recorded.type, data: recorded.data });
  if (isLeft(result)) {
    const failures = failuresOf(result.left);
    throw new BrokenContract(`event ${streamRef(recorded.streamId)}@${recorded.revision} (${recorded.type}) breaks its contract: ${failures.join('; ')}`, failures);
  }
  return result.right;
};

/** Whether a recorded event belongs to a category (`category-id` streams). */
export const inCategory = (category: string, recorded: RecordedEvent): boolean =>
  recorded.streamId.startsWith(`${category}-`);
