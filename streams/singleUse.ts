// What the single-use categories share (a c_nonce, a DPoP proof's jti): one command, using the
// value, which the first use records and every later one is refused. The command handler runs it
// on the initial state at `no_stream` without a read, so the store lets exactly one use win,
// across instances and restarts.
import * as t from 'io-ts';
import { left, right } from 'fp-ts/lib/Either.js';
import type { Decider, Event } from './event.js';

export interface Use<E extends Event> {
  readonly type: 'Use';
  readonly data: E['data'];
}

export type SingleUseState = { readonly used: boolean };

export type AlreadyUsed = { readonly _tag: 'AlreadyUsed' };

export const singleUse = <E extends Event>(category: string, codec: t.Decoder<unknown, E>, type: E['type']): Decider<Use<E>, SingleUseState, E, AlreadyUsed> => ({
  category,
  codec,
  initialState: { used: false },
  evolve: () => ({ used: true }),
  decide: (command, state) => (state.used ? left({ _tag: 'AlreadyUsed' }) : right([{ type, data: command.data } as E])),
});
