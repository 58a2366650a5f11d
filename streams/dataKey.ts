// Stream category `datakey`: one stream per flow whose personal data is encrypted,
// `datakey-<owner id>`. It holds the flow's data key, wrapped by the key-encryption key kept
// outside the store. Destroying the key tombstones the stream: the data sealed with it is gone.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec, type StreamContract } from './event.js';

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

export const dataKey: StreamContract<DataKeyState, DataKeyEvent> = {
  category,
  codec: DataKeyEvent,
  initialState: { status: 'none' },
  evolve: (_state, event) => ({ status: 'issued', wrappedKey: event.data.wrappedKey }),
};
