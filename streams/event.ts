// What every stream module shares: an event is a typed `{ type, data }` pair, read back only
// through its category's io-ts codec, and `evolve` folds a stream into state.
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import { streamRef } from '../src/logRef.js';

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

/** Where and what a decode failed, without the value found there: it may be personal data. */
const failures = (errors: t.Errors): string =>
  errors
    .map((e) => `${e.context.map((c) => c.key).filter((key) => key !== '').join('.') || '(root)'}: expected ${e.context[e.context.length - 1]?.type.name ?? 'another value'}`)
    .join('; ');

/**
 * Reads a recorded event back through its codec. A stored event that does not decode is a
 * broken contract, not bad input: it throws with the stream (as logs show it), revision and
 * failures.
 */
export const decodeRecorded = <E extends Event>(codec: t.Decoder<unknown, E>, recorded: RecordedEvent): E => {
  const result = codec.decode({ type: recorded.type, data: recorded.data });
  if (isLeft(result)) {
    throw new Error(`event ${streamRef(recorded.streamId)}@${recorded.revision} (${recorded.type}) breaks its contract: ${failures(result.left)}`);
  }
  return result.right;
};

/** Whether a recorded event belongs to a category (`category-id` streams). */
export const inCategory = (category: string, recorded: RecordedEvent): boolean =>
  recorded.streamId.startsWith(`${category}-`);
