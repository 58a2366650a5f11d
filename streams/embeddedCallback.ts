// Events recorded before callbacks became translations of domain events (src/callbacks/callbackOf.ts)
// embedded the webhook request they asked for as `data.callback`, and named some facts only
// there: the tenant (every callback-worthy event), the offer (an offer's end) and the sealed
// presented credentials (a FULFILLED outcome). Their codecs read such data through
// `readingEmbeddedCallback`, which copies those facts out, so every reader (folds, projections,
// the translation to a callback) sees the current shape. The embedded request itself stays in the
// data: a callback pending across an upgrade is delivered exactly as it was recorded.
import * as t from 'io-ts';
import { isRight } from 'fp-ts/lib/Either.js';
import { Sealed } from './dataKey.js';

const EmbeddedCallback = t.intersection([
  t.type({ tenantId: t.string, eventId: t.string }),
  t.partial({ sealed: t.type({ value: Sealed }) }),
]);
export type EmbeddedCallback = t.TypeOf<typeof EmbeddedCallback>;

/**
 * `codec`, reading older data too: facts `lift` finds in an embedded callback fill in what the data
 * does not carry itself (an upcast). Current data is validated as it is.
 */
export const readingEmbeddedCallback = <C extends t.Mixed>(
  codec: C,
  lift: (callback: EmbeddedCallback) => Record<string, unknown>,
): t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown> => {
  const upcast = (data: unknown): unknown => {
    if (typeof data !== 'object' || data === null || !('callback' in data)) return data;
    const embedded = EmbeddedCallback.decode(data.callback);
    return isRight(embedded) ? { ...lift(embedded.right), ...data } : data;
  };
  return new t.Type(codec.name, codec.is, (u, c) => codec.validate(upcast(u), c), codec.encode);
};
