// Spending a single-use value (a c_nonce, a DPoP proof's jti) is creating its stream with
// expected revision `no_stream`: the store lets exactly one writer win, across instances and
// restarts, with no read first (the decider runs on its initial state; streams/singleUse.ts).
import { randomUUID } from 'node:crypto';
import { isRight } from 'fp-ts/lib/Either.js';
import type { Decider, Event } from '../../streams/event.js';
import type { AlreadyUsed, SingleUseState, Use } from '../../streams/singleUse.js';
import { handleCommand } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';

/** True for the first spender; false when the value was already spent. */
export const spendOnce = async <E extends Event>(
  store: EventStore,
  decider: Decider<Use<E>, SingleUseState, E, AlreadyUsed>,
  streamId: string,
  data: E['data'],
): Promise<boolean> =>
  isRight(
    await handleCommand(store, decider, streamId, { type: 'Use', data }, {
      commandId: randomUUID(),
      metadata: { actor: 'wallet' },
      loaded: { state: decider.initialState, expectedRevision: 'no_stream' },
    }),
  );
