// The write side's one loop: load a stream, fold it, decide, append at the revision read.
// A concurrent writer makes the append fail with WrongExpectedRevision; it is never silent.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { decodeRecorded, type Event, type StreamContract } from '../../streams/event.js';
import type { AppendError, AppendResult, EventStore, ExpectedRevision, Json, Position } from './port.js';

/** Who caused a write and in answer to what; never personal data. */
export interface EventMetadata {
  readonly actor: string;
  readonly requestId?: string;
}

export interface Loaded<State> {
  readonly state: State;
  readonly expectedRevision: ExpectedRevision;
}

export interface Handled<E> {
  readonly events: readonly E[];
  readonly position: Position | undefined;
  readonly revision: number;
}

export const loadStream = async <State, E extends Event>(
  store: EventStore,
  contract: StreamContract<State, E>,
  streamId: string,
): Promise<Either<AppendError, Loaded<State>>> => {
  const read = await store.readStream(streamId);
  if (read._tag === 'StreamDeleted') return left(read);
  if (read._tag === 'StreamNotFound') return right({ state: contract.initialState, expectedRevision: 'no_stream' });
  let state = contract.initialState;
  for (const recorded of read.events) state = contract.evolve(state, decodeRecorded(contract.codec, recorded));
  return right({ state, expectedRevision: read.events[read.events.length - 1]!.revision });
};

/**
 * Appends domain events as recorded events: each gets a fresh id (a retry of the same append is
 * the caller's to make with the same ids) and, when given, the metadata.
 */
export const appendEvents = (
  store: EventStore,
  streamId: string,
  events: readonly Event[],
  expectedRevision: ExpectedRevision,
  metadata?: EventMetadata,
): Promise<Either<AppendError, AppendResult>> =>
  store.append(
    streamId,
    events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data as Json, ...(metadata ? { metadata: { ...metadata } } : {}) })),
    expectedRevision,
  );

/**
 * Runs `decide` on the stream's current state and appends what it returns. Returns the domain
 * error, the store's error (a lost race or a deleted stream), or what was written. A caller that
 * has just loaded the stream passes what it loaded; if the stream has moved on since, the append
 * loses the race like any other.
 */
export const handleCommand = async <State, E extends Event, DomainError>(
  store: EventStore,
  contract: StreamContract<State, E>,
  streamId: string,
  decide: (state: State) => Either<DomainError, readonly E[]>,
  metadata: EventMetadata,
  alreadyLoaded?: Loaded<State>,
): Promise<Either<DomainError | AppendError, Handled<E>>> => {
  const loaded = alreadyLoaded ? right(alreadyLoaded) : await loadStream(store, contract, streamId);
  if (isLeft(loaded)) return loaded;
  const decision = decide(loaded.right.state);
  if (isLeft(decision)) return decision;
  const events = decision.right;
  const current = loaded.right.expectedRevision;
  if (events.length === 0) return right({ events, position: undefined, revision: current === 'no_stream' ? -1 : Number(current) });
  const appended = await appendEvents(store, streamId, events, current, metadata);
  if (isLeft(appended)) return appended;
  return right({ events, position: appended.right.position, revision: appended.right.nextExpectedRevision });
};
