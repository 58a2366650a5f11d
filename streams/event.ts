// What every stream module shares: an event is a typed `{ type, data }` pair, read back only
// through its category's io-ts codec, and `evolve` folds a stream into state.
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import type { RecordedEvent } from '../src/eventstore/port.js';

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
 * Reads a recorded event back through its codec. A stored event that does not decode is a
 * broken contract, not bad input: it throws with the stream, revision and failures.
 */
export const decodeRecorded = <E extends Event>(codec: t.Decoder<unknown, E>, recorded: RecordedEvent): E => {
  const result = codec.decode({ type: recorded.type, data: recorded.data });
  if (isLeft(result)) {
    throw new Error(
      `event ${recorded.streamId}@${recorded.revision} (${recorded.type}) breaks its contract: ${PathReporter.report(result).join('; ')}`,
    );
  }
  return result.right;
};

/** Whether a recorded event belongs to a category (`category-id` streams). */
export const inCategory = (category: string, recorded: RecordedEvent): boolean =>
  recorded.streamId.startsWith(`${category}-`);
