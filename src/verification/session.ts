// Reading a presentation session on the write side, as the wallet-facing steps need it: its
// state folded from the stream, its data key, and the sealed request opened.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { presentation, presentationStream, unavailable, type Channel, type PresentationState, type SessionUnavailable } from '../../streams/presentation.js';
import { purposes } from '../../streams/presentationSealed.js';
import { openFor, type DataKey, type DataKeys } from '../crypto/dataKeys.js';
import { loadStream, type Loaded } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { streamRef } from '../../streams/kernel.js';
import { SealedRequest } from './sealedRequest.js';

export type { SessionUnavailable };

export type OpenSession = Extract<PresentationState, { status: 'open' }>;

export interface LoadedSession {
  readonly session: OpenSession;
  /** The stream as read: a command decided on `session` appends at its revision. */
  readonly loaded: Loaded<PresentationState>;
  readonly key: DataKey;
  readonly request: SealedRequest;
  readonly expiresAt: Date;
}

/**
 * The session if it can still take part in the protocol by `channel`, with its secrets opened.
 * With `tenantId` (the management API), another tenant's session is unknown, whatever its state.
 */
export const openSession = async (
  deps: { readonly store: EventStore; readonly dataKeys: DataKeys },
  state: string,
  now: Date,
  on: { readonly channel: Channel; readonly tenantId?: string },
): Promise<Either<SessionUnavailable, LoadedSession>> => {
  const loaded = await loadStream(deps.store, presentation, presentationStream(state));
  if (isLeft(loaded)) return left({ _tag: 'UnknownSession' });
  const session = loaded.right.state;
  if (on.tenantId !== undefined && session.status !== 'none' && session.tenantId !== on.tenantId) return left({ _tag: 'UnknownSession' });
  const problem = unavailable(session, now.toISOString(), on.channel);
  if (problem !== undefined) return left(problem);
  if (session.status !== 'open') return left({ _tag: 'SessionFinished' });
  // Without its key a session's secrets are gone: it has ended, whatever the stream says yet.
  const key = await deps.dataKeys.find(state);
  if (key === undefined) return left({ _tag: 'SessionFinished' });
  const request = SealedRequest.decode(openFor(key, purposes.request, session.request));
  if (isLeft(request)) throw new Error(`${streamRef(presentationStream(state))}: the sealed request breaks its contract`);
  return right({ session, loaded: loaded.right, key, request: request.right, expiresAt: new Date(session.expiresAt) });
};
