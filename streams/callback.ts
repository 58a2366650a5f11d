// The contract between the flows and the callback subscriber. An event on a `presentation-`,
// `offer-` or `credentialstatus-` stream that must reach the integrator carries `data.callback`:
// the callback body without personal data, and the personal part sealed with the flow's data key.
// The subscriber opens the sealed part, merges it into the body, delivers, and then destroys that
// key.
import * as t from 'io-ts';
import { Sealed } from './dataKey.js';

export const CallbackRequest = t.intersection(
  [
    t.type({
      tenantId: t.string,
      /** With `status`, identifies the delivery: `state` for verification, `offerId` for issuance, the change's id for a status change. */
      eventId: t.string,
      status: t.string,
      /** The callback body as the spec defines it, minus the sealed fields. */
      body: t.record(t.string, t.unknown),
    }),
    t.partial({
      /** Fields merged into `body` after opening with the data key of `ownerId`. */
      sealed: t.type({ ownerId: t.string, purpose: t.string, value: Sealed }),
    }),
  ],
  'CallbackRequest',
);
export type CallbackRequest = t.TypeOf<typeof CallbackRequest>;

/** Stream categories whose events may carry a callback request. */
export const callbackSourceCategories = ['presentation', 'offer', 'credentialstatus'] as const;
