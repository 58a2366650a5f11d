// A session's end on the write side: the terminal event an outcome (or the time-out) decides,
// appended at the revision read, and the data key destroyed once nothing sealed with it is needed.
// Every step that ends a session (response/, dcApi/, the expiry scheduler) goes through here.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import {
  presentation,
  presentationStream,
  type Command,
  type OutcomeCommand,
  type PresentationState,
  type PresentationTerminalEvent,
} from '../../streams/presentation.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, type EventMetadata, type Loaded } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { streamRef } from '../../streams/kernel.js';
import type { SessionUnavailable } from './session.js';

/**
 * Destroys the session's data key at once when the outcome holds nothing sealed with it; a
 * FULFILLED session's key lives until the callback subscriber has delivered the presented credentials.
 */
export const destroyDataKeyUnlessNeeded = async (dataKeys: DataKeys, event: PresentationTerminalEvent): Promise<void> => {
  if (event.type !== 'PresentationFulfilled') await dataKeys.destroy(event.data.state);
};

/** Lost races decided again on the stream as it now is: the outcome stays right whoever got in first. */
const RACE_RETRIES = 4;

/**
 * Records `command` (an outcome, or the time-out) on the session's stream and returns the
 * terminal event it decided, if any: `PresentationExpired` in place of an outcome that came too late.
 */
export const finish = async (
  store: EventStore,
  command: Extract<Command, OutcomeCommand | { type: 'Expire' }>,
  metadata: EventMetadata,
  loaded?: Loaded<PresentationState>,
): Promise<Either<SessionUnavailable, PresentationTerminalEvent | undefined>> => {
  const stream = presentationStream(command.data.state);
  const result = await handleCommand(store, presentation, stream, command, { commandId: randomUUID(), metadata, retries: RACE_RETRIES, ...(loaded ? { loaded } : {}) });
  if (isLeft(result)) {
    const failed = result.left;
    switch (failed.kind) {
      case 'store':
        if (failed.error._tag === 'WrongExpectedRevision') throw new Error(`${streamRef(stream)}: the outcome kept losing to concurrent writers`);
        return left({ _tag: 'UnknownSession' });
      case 'domain':
        if (failed.error._tag === 'UnknownRequestKey') throw new Error(`${streamRef(stream)}: an outcome for a request key the session never handed out`);
        return left(failed.error._tag === 'PresentationExists' ? { _tag: 'UnknownSession' } : failed.error);
    }
  }
  return right(result.right.events[0] as PresentationTerminalEvent | undefined);
};

/**
 * The time-out as a command: appends `PresentationExpired` at the revision read if the session
 * is still open and past its expiry at `now`, and destroys the session's data key; otherwise
 * does nothing. Returns whether it expired the session.
 */
export const expirePresentation = async (
  deps: { readonly store: EventStore; readonly dataKeys: DataKeys },
  state: string,
  metadata: EventMetadata,
  now: Date,
): Promise<boolean> => {
  const result = await finish(deps.store, { type: 'Expire', data: { state, at: now.toISOString() } }, metadata);
  if (isLeft(result) || result.right === undefined) return false;
  await destroyDataKeyUnlessNeeded(deps.dataKeys, result.right);
  return true;
};
