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
import { streamName, type Json } from './kernel.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'datakey';
export const dataKeyStream = (ownerId: string): string => streamName(category, ownerId);

/** AES-256-GCM output, base64url: the wire form of every sealed value. */
const SealedBox = t.type({ alg: t.literal('A256GCM'), iv: t.string, ciphertext: t.string, tag: t.string }, 'Sealed');

declare const sealedValue: unique symbol;

/**
 * What goes into events in place of personal data: AES-256-GCM output, base64url. `T` is what was
 * sealed, a type only (the wire form is the same whatever was sealed), so that opening it for its
 * purpose (`SealedPurpose<T>`) gives a `T` back without a cast.
 */
export type Sealed<T extends Json = Json> = t.TypeOf<typeof SealedBox> & { readonly [sealedValue]?: T };

/** The codec of a value sealed for a purpose whose values are `T`: the same wire form for every `T`. */
const sealedCodec = <T extends Json>(): t.Type<Sealed<T>, Sealed<T>, unknown> =>
  new t.Type<Sealed<T>, Sealed<T>, unknown>('Sealed', (u): u is Sealed<T> => SealedBox.is(u), SealedBox.validate, t.identity);

/** A sealed value, of whatever purpose. */
export const Sealed = sealedCodec<Json>();

/**
 * What a value is sealed for: the purpose's name, bound into the associated data (so the name
 * never changes), and the codec its values are read back with once opened.
 */
export interface SealedPurpose<T extends Json> {
  readonly name: string;
  readonly codec: t.Decoder<unknown, T>;
}

export const sealedPurpose = <T extends Json>(name: string, codec: t.Decoder<unknown, T>): SealedPurpose<T> => ({ name, codec });

/** The codec of an event member sealed for `purpose`: read back as `Sealed<T>`. */
export const sealedFor = <T extends Json>(_purpose: SealedPurpose<T>): t.Type<Sealed<T>, Sealed<T>, unknown> => sealedCodec<T>();

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
