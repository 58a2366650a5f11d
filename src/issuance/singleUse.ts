// Spending a single-use value (a c_nonce, a DPoP proof's jti) is creating its stream with
// expected revision `no_stream`: the store lets exactly one writer win, across instances and
// restarts, with no read first.
import { isRight } from 'fp-ts/lib/Either.js';
import { appendEvents } from '../eventstore/handle.js';
import type { EventStore, Json } from '../eventstore/port.js';

/** True for the first spender; false when the value was already spent. */
export const spendOnce = async (store: EventStore, streamId: string, type: string, data: Json): Promise<boolean> =>
  isRight(await appendEvents(store, streamId, [{ type, data }], 'no_stream'));
