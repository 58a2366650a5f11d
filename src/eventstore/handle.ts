// The write side's one loop: load a stream, fold it, decide, append at the revision read.
// A concurrent writer makes the append fail with WrongExpectedRevision; it is never silent. Where a
// command says deciding again is safe, a lost race is decided again on the stream as it now is.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { decodeRecorded, type Decider, type Event, type StreamContract } from '../../streams/event.js';
import { nameBasedUuid } from '../../streams/kernel.js';
import type { AppendError, EventStore, Json, Position } from './port.js';

/** Who caused a write and in answer to what; never personal data. */
export interface EventMetadata {
  readonly actor: string;
  readonly requestId?: string;
  /** The type of the command the events answer; handleCommand adds it. */
  readonly command?: string;
}

export interface Loaded<State> {
  readonly state: State;
  /** The revision the state was read at: a stream's last revision, or `no_stream`. Never `any`: the state is of one revision. */
  readonly expectedRevision: number | 'no_stream';
}

export interface Handled<State, E> {
  readonly events: readonly E[];
  /** The stream's state once the events are applied. */
  readonly state: State;
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

// A fixed namespace for name-based (RFC 4122 version 5) event ids.
const EVENT_ID_NAMESPACE = Buffer.from('5b0c1f0e6a2d4c4e9d7f3a8e2b1c0d9f', 'hex');

/**
 * The id of the `index`th event a command appends to a stream: a version-5 UUID of the three, so
 * the same command appended again at the same revision is recognised by the store and written once.
 */
export const eventIdOf = (commandId: string, streamId: string, index: number): string =>
  nameBasedUuid(EVENT_ID_NAMESPACE, `${streamId}\n${commandId}\n${index}`);

export interface CommandOptions<State, E, HookError> {
  /** Names this command: its events' ids derive from it (see eventIdOf). */
  readonly commandId: string;
  readonly metadata: EventMetadata;
  /** What the caller has just loaded; if the stream has moved on since, the append loses the race. */
  readonly loaded?: Loaded<State>;
  /**
   * Lost races decided again on the stream as it now is, for commands whose decision stays right
   * whoever got in first (not under If-Match, whose answer to a lost race is 412). Default 0.
   */
  readonly retries?: number;
  /**
   * I/O the decision calls for before it is recorded (a kind's writes on other streams, destroying
   * the data key an event says is destroyed): runs after each decision that appends something and
   * before its append; a Left refuses the command and nothing is appended.
   */
  readonly beforeAppend?: (events: readonly E[], state: State) => Promise<Either<HookError, void>>;
}

/**
 * Why a command wrote nothing, tagged by who refused it: the decider (`domain`), the store (`store`:
 * a race lost more often than the command may retry, or a deleted stream) or the command's
 * `beforeAppend` (`hook`; no such kind for a command without one). Callers switch on `kind` with no default, so a new kind left unmapped
 * does not compile.
 */
export type CommandError<DomainError, HookError = never> =
  | { readonly kind: 'domain'; readonly error: DomainError }
  | { readonly kind: 'store'; readonly error: AppendError }
  | ([HookError] extends [never] ? never : { readonly kind: 'hook'; readonly error: HookError });

const commandTypeOf = (command: unknown): { readonly command?: string } =>
  typeof command === 'object' && command !== null && 'type' in command && typeof command.type === 'string' ? { command: command.type } : {};

/**
 * Runs the decider's `decide` on the stream's current state and appends what it returns, at the
 * revision read. Returns why nothing was written (see CommandError), or what was written and the
 * state it leaves.
 */
export const handleCommand = async <Command, State, E extends Event, DomainError, HookError = never>(
  store: EventStore,
  decider: Decider<Command, State, E, DomainError>,
  streamId: string,
  command: Command,
  options: CommandOptions<State, E, HookError>,
): Promise<Either<CommandError<DomainError, HookError>, Handled<State, E>>> => {
  let given = options.loaded;
  for (let attempt = 0; ; attempt++) {
    const loaded = given ? right(given) : await loadStream(store, decider, streamId);
    given = undefined;
    if (isLeft(loaded)) return left({ kind: 'store', error: loaded.left });
    const { state, expectedRevision } = loaded.right;
    const decision = decider.decide(command, state);
    if (isLeft(decision)) return left({ kind: 'domain', error: decision.left });
    const events = decision.right;
    const after = events.reduce(decider.evolve, state);
    if (events.length === 0) {
      return right({ events, state: after, position: undefined, revision: expectedRevision === 'no_stream' ? -1 : expectedRevision });
    }
    if (options.beforeAppend) {
      const ready = await options.beforeAppend(events, state);
      // A hook that can refuse has a HookError, so the kind exists (the conditional type is open here).
      if (isLeft(ready)) return left({ kind: 'hook', error: ready.left } as CommandError<DomainError, HookError>);
    }
    // Which command the events answer, for the auditor (docs/console.md): its type, never its data.
    const metadata = { ...options.metadata, ...commandTypeOf(command) };
    const appended = await store.append(
      streamId,
      events.map((e, index) => ({ id: eventIdOf(options.commandId, streamId, index), type: e.type, data: e.data as Json, metadata })),
      expectedRevision,
    );
    if (isLeft(appended)) {
      if (appended.left._tag === 'WrongExpectedRevision' && attempt < (options.retries ?? 0)) continue;
      return left({ kind: 'store', error: appended.left });
    }
    return right({ events, state: after, position: appended.right.position, revision: appended.right.nextExpectedRevision });
  }
};
