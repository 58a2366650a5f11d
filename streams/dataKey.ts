// Stream category `datakey`: one stream per flow whose personal data is encrypted,
// `datakey-<owner id>`. It holds the flow's data key, wrapped by the key-encryption key kept
// outside the store. Destroying the key tombstones the stream: the data sealed with it is gone.
// As a decider:
//
//   none --IssueDataKey--> issued           (destroying it is the store's tombstone, not an event)
//
// Pure: the key, already wrapped, comes in the command.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'datakey';
export const dataKeyStream = (ownerId: string): string => streamName(category, ownerId);

/** AES-256-GCM output, base64url; what goes into events in place of personal data. */
export const Sealed = t.type({ alg: t.literal('A256GCM'), iv: t.string, ciphertext: t.string, tag: t.string }, 'Sealed');
export type Sealed = t.TypeOf<typeof Sealed>;

export const DataKeyIssued = eventCodec('DataKeyIssued', t.type({ ownerId: t.string, wrappedKey: Sealed }));

/** Every event a data key stream can hold. */
export const DataKeyEvent = DataKeyIssued;
export type DataKeyEvent = t.TypeOf<typeof DataKeyEvent>;

export type DataKeyState = { readonly status: 'none' } | { readonly status: 'issued'; readonly wrappedKey: Sealed };

export type Command = { readonly type: 'IssueDataKey'; readonly data: { readonly ownerId: string; readonly wrappedKey: Sealed } };

/** An owner has one key for good: issuing another would leave data sealed with the first unreadable. */
export type DomainError = { readonly _tag: 'DataKeyExists'; readonly ownerId: string };

export const initialState: DataKeyState = { status: 'none' };

export const evolve = (_state: DataKeyState, event: DataKeyEvent): DataKeyState => ({ status: 'issued', wrappedKey: event.data.wrappedKey });

export const decide = (command: Command, state: DataKeyState): Either<DomainError, DataKeyEvent[]> => {
  const { ownerId, wrappedKey } = command.data;
  if (state.status !== 'none') return left({ _tag: 'DataKeyExists', ownerId });
  return right([{ type: 'DataKeyIssued', data: { ownerId, wrappedKey } }]);
};

export const dataKey: Decider<Command, DataKeyState, DataKeyEvent, DomainError> = { category, codec: DataKeyEvent, initialState, evolve, decide };
