// Stream category `delivery`: one stream per callback delivery, `delivery-<delivery id>`. The id
// is derived from (tenant, eventId, status), so two instances recording the same delivery collide
// on `no_stream` and it is recorded once. The stream holds the callback request the flow's
// terminal event was translated to (src/callbacks/callbackOf.ts; personal data only sealed), every
// claim and attempt, and how the delivery ended. As a decider:
//
//   none --RecordDelivery--> pending (claimed at once when the recording instance has room)
//   pending (due, unclaimed) --ClaimDelivery--> pending, claimed
//   pending, claimed by the instance --RecordAttempt--> delivered | pending (a retry due) | abandoned | undeliverable
//   abandoned | undeliverable (data there) --RequestResend--> pending, one more attempt
//   ended, sealed data --DestroyData--> data destroyed
//
// Pure: the ids, the time, the claim's expiry, what the attempt found and when the next one is due
// (the retry schedule, src/callbacks/schedule.ts) and whether the sealed data's key still exists
// come in the command.
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { eventCodec, type Decider } from './event.js';

/**
 * What one delivery sends: the webhook body without personal data, and the personal part sealed
 * with the flow's data key. The deliverer opens the sealed part, merges it into the body, posts
 * it, and once the delivery has ended destroys that key.
 */
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
      /**
       * Not a callback but a DIDComm message of the tenant (`didcomm-<messageId>`), packed for its
       * recipient and posted to the recipient's service endpoint at each attempt; `body` is empty.
       */
      didcomm: t.type({ messageId: t.string }),
    }),
  ],
  'CallbackRequest',
);
export type CallbackRequest = t.TypeOf<typeof CallbackRequest>;

export const category = 'delivery';
export const deliveryStream = (deliveryId: string): string => streamName(category, deliveryId);

/**
 * The delivery's id, also its `webhook-id`: a UUID-shaped digest of the deduplication key the
 * spec names (eventId + status), scoped to the tenant so one tenant's ids cannot collide with
 * another's.
 */
export const deliveryIdOf = (tenantId: string, eventId: string, status: string): string => {
  const hex = createHash('sha256').update(JSON.stringify([tenantId, eventId, status])).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

export const DeliveryRecorded = eventCodec(
  'DeliveryRecorded',
  t.type({
    deliveryId: t.string,
    /** The event that asked for the callback, and where it is in `$all` (`commit/prepare`). */
    source: t.type({ streamId: t.string, revision: t.number, eventId: t.string, position: t.string }),
    callback: CallbackRequest,
    recordedAt: t.string,
  }),
);

/** This instance attempts the delivery until `expiresAt`; a crashed instance's claim just lapses. */
export const DeliveryClaimed = eventCodec(
  'DeliveryClaimed',
  t.type({ deliveryId: t.string, instanceId: t.string, claimedAt: t.string, expiresAt: t.string }),
);

export const FailureReason = t.keyof(
  {
    http_status: null,
    timeout: null,
    network: null,
    /** A DIDComm recipient's DID did not resolve to a usable key and endpoint. */
    unresolvable: null,
    /** A DIDComm endpoint's address or scheme is not allowed (src/didcomm/endpointSafety.ts). */
    endpoint_refused: null,
  },
  'FailureReason',
);
export type FailureReason = t.TypeOf<typeof FailureReason>;

export const DeliveryAttemptFailed = eventCodec(
  'DeliveryAttemptFailed',
  t.type({
    deliveryId: t.string,
    /** 1 for the first attempt; re-sends continue the count. */
    attempt: t.number,
    attemptedAt: t.string,
    reason: FailureReason,
    httpStatus: t.union([t.number, t.null]),
    /** A short technical reason (error code, status text); never the receiver's body. */
    detail: t.string,
    durationMs: t.number,
    /** When the next attempt is due; null when this was the last one (DeliveryAbandoned follows). */
    nextAttemptAt: t.union([t.string, t.null]),
  }),
);

export const DeliveryDelivered = eventCodec(
  'DeliveryDelivered',
  t.type({ deliveryId: t.string, attempt: t.number, attemptedAt: t.string, httpStatus: t.number, durationMs: t.number }),
);

export const AbandonReason = t.keyof(
  {
    /** Every attempt of the schedule (or the re-send) failed. */
    retries_exhausted: null,
    /** The tenant has no callback URL: no attempt is made ("undeliverable"). */
    no_callback_url: null,
    /** The sealed part can no longer be opened: its data key is already destroyed. */
    data_gone: null,
  },
  'AbandonReason',
);
export type AbandonReason = t.TypeOf<typeof AbandonReason>;

export const DeliveryAbandoned = eventCodec(
  'DeliveryAbandoned',
  t.type({ deliveryId: t.string, reason: AbandonReason, abandonedAt: t.string }),
);

/** An operator's re-send: one more attempt of the same delivery, due at once. */
export const DeliveryResendRequested = eventCodec(
  'DeliveryResendRequested',
  t.type({ deliveryId: t.string, requestedAt: t.string }),
);

/** The flow's data key was destroyed after the delivery ended: the sealed part is gone for good. */
export const DeliveryDataDestroyed = eventCodec(
  'DeliveryDataDestroyed',
  t.type({ deliveryId: t.string, ownerId: t.string, destroyedAt: t.string }),
);

/** Every event a delivery stream can hold. */
export const DeliveryEvent = t.union([
  DeliveryRecorded,
  DeliveryClaimed,
  DeliveryAttemptFailed,
  DeliveryDelivered,
  DeliveryAbandoned,
  DeliveryResendRequested,
  DeliveryDataDestroyed,
]);
export type DeliveryEvent = t.TypeOf<typeof DeliveryEvent>;

export type DeliveryStatus = 'pending' | 'delivered' | 'abandoned' | 'undeliverable';

export interface Delivery {
  readonly status: DeliveryStatus;
  readonly deliveryId: string;
  readonly callback: CallbackRequest;
  readonly recordedAt: string;
  /** Attempts made so far. */
  readonly attempts: number;
  /** After a re-send, the attempt count at which the delivery is abandoned again; else the schedule's length. */
  readonly attemptLimit: number | null;
  readonly nextAttemptAt: string | null;
  readonly claim: { readonly instanceId: string; readonly expiresAt: string } | null;
  readonly dataDestroyed: boolean;
}

export type DeliveryState = { readonly status: 'none' } | Delivery;

const finished = (reason: AbandonReason): DeliveryStatus => (reason === 'no_callback_url' ? 'undeliverable' : 'abandoned');

type Recorded = t.TypeOf<typeof DeliveryRecorded>['data'];
type Failed = t.TypeOf<typeof DeliveryAttemptFailed>['data'];
type Delivered = t.TypeOf<typeof DeliveryDelivered>['data'];

/** What one attempt of a claimed delivery came to. */
export type AttemptOutcome =
  | ({ readonly kind: 'delivered' } & Omit<Delivered, 'deliveryId'>)
  /** A failure with `nextAttemptAt` null was the last attempt: the delivery is abandoned. */
  | ({ readonly kind: 'failed' } & Omit<Failed, 'deliveryId'>)
  /** No attempt made: the tenant has no callback URL, or the sealed data no longer opens. */
  | { readonly kind: 'not_attempted'; readonly reason: 'no_callback_url' | 'data_gone' };

export interface DeliveryClaim {
  readonly instanceId: string;
  readonly expiresAt: string;
}

export type Command =
  | { readonly type: 'RecordDelivery'; readonly data: Omit<Recorded, 'recordedAt'> & { readonly claim: DeliveryClaim | undefined; readonly at: string } }
  | { readonly type: 'ClaimDelivery'; readonly data: { readonly deliveryId: string; readonly claim: DeliveryClaim; readonly at: string } }
  | { readonly type: 'RecordAttempt'; readonly data: { readonly deliveryId: string; readonly instanceId: string; readonly outcome: AttemptOutcome; readonly at: string } }
  | { readonly type: 'RequestResend'; readonly data: { readonly deliveryId: string; readonly dataExists: boolean; readonly at: string } }
  | { readonly type: 'DestroyData'; readonly data: { readonly deliveryId: string; readonly at: string } };

export type DomainError =
  | { readonly _tag: 'DeliveryExists'; readonly deliveryId: string }
  | { readonly _tag: 'DeliveryNotFound'; readonly deliveryId: string }
  /** Ended, not due yet, or claimed by an instance whose claim has not lapsed. */
  | { readonly _tag: 'NotClaimable'; readonly deliveryId: string }
  /** The instance's claim lapsed and another took the delivery over (or it ended): its record wins. */
  | { readonly _tag: 'ClaimLost'; readonly deliveryId: string }
  | { readonly _tag: 'NotAbandoned'; readonly deliveryId: string; readonly status: string }
  | { readonly _tag: 'DataGone'; readonly deliveryId: string };

export const initialState: DeliveryState = { status: 'none' };

export const evolve = (state: DeliveryState, event: DeliveryEvent): DeliveryState => {
  if (event.type === 'DeliveryRecorded') {
    const { deliveryId, callback, recordedAt } = event.data;
    return {
      status: 'pending', deliveryId, callback, recordedAt, attempts: 0, attemptLimit: null,
      nextAttemptAt: recordedAt, claim: null, dataDestroyed: false,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'DeliveryClaimed':
      return { ...state, claim: { instanceId: event.data.instanceId, expiresAt: event.data.expiresAt } };
    case 'DeliveryAttemptFailed':
      return { ...state, attempts: event.data.attempt, nextAttemptAt: event.data.nextAttemptAt, claim: null };
    case 'DeliveryDelivered':
      return { ...state, status: 'delivered', attempts: event.data.attempt, nextAttemptAt: null, claim: null };
    case 'DeliveryAbandoned':
      return { ...state, status: finished(event.data.reason), nextAttemptAt: null, claim: null };
    case 'DeliveryResendRequested':
      return { ...state, status: 'pending', attemptLimit: state.attempts + 1, nextAttemptAt: event.data.requestedAt, claim: null };
    case 'DeliveryDataDestroyed':
      return { ...state, dataDestroyed: true };
  }
};

const abandoned = (deliveryId: string, reason: AbandonReason, at: string): DeliveryEvent => ({ type: 'DeliveryAbandoned', data: { deliveryId, reason, abandonedAt: at } });

const eventsOf = (deliveryId: string, outcome: AttemptOutcome, at: string): DeliveryEvent[] => {
  switch (outcome.kind) {
    case 'delivered': {
      const { kind: _, ...delivered } = outcome;
      return [{ type: 'DeliveryDelivered', data: { deliveryId, ...delivered } }];
    }
    case 'failed': {
      const { kind: _, ...failed } = outcome;
      const recorded: DeliveryEvent = { type: 'DeliveryAttemptFailed', data: { deliveryId, ...failed } };
      return failed.nextAttemptAt === null ? [recorded, abandoned(deliveryId, 'retries_exhausted', at)] : [recorded];
    }
    case 'not_attempted':
      return [abandoned(deliveryId, outcome.reason, at)];
  }
};

export const decide = (command: Command, state: DeliveryState): Either<DomainError, DeliveryEvent[]> => {
  const { deliveryId, at } = command.data;
  if (command.type === 'RecordDelivery') {
    if (state.status !== 'none') return left({ _tag: 'DeliveryExists', deliveryId });
    const { claim, at: recordedAt, ...recorded } = command.data;
    const events: DeliveryEvent[] = [{ type: 'DeliveryRecorded', data: { ...recorded, recordedAt } }];
    if (claim) events.push({ type: 'DeliveryClaimed', data: { deliveryId, instanceId: claim.instanceId, claimedAt: at, expiresAt: claim.expiresAt } });
    return right(events);
  }
  if (state.status === 'none') return left({ _tag: 'DeliveryNotFound', deliveryId });
  switch (command.type) {
    case 'ClaimDelivery': {
      const now = Date.parse(at);
      const due = state.nextAttemptAt === null || Date.parse(state.nextAttemptAt) <= now;
      const unclaimed = !state.claim || Date.parse(state.claim.expiresAt) <= now;
      if (state.status !== 'pending' || !due || !unclaimed) return left({ _tag: 'NotClaimable', deliveryId });
      const { instanceId, expiresAt } = command.data.claim;
      return right([{ type: 'DeliveryClaimed', data: { deliveryId, instanceId, claimedAt: at, expiresAt } }]);
    }
    case 'RecordAttempt':
      if (state.status !== 'pending' || state.claim?.instanceId !== command.data.instanceId) return left({ _tag: 'ClaimLost', deliveryId });
      return right(eventsOf(deliveryId, command.data.outcome, at));
    case 'RequestResend':
      if (state.status !== 'abandoned' && state.status !== 'undeliverable') return left({ _tag: 'NotAbandoned', deliveryId, status: state.status });
      if (state.dataDestroyed || !command.data.dataExists) return left({ _tag: 'DataGone', deliveryId });
      return right([{ type: 'DeliveryResendRequested', data: { deliveryId, requestedAt: at } }]);
    case 'DestroyData':
      // Pending: its attempts still need the data. Nothing sealed, or destroyed already: nothing to do.
      if (state.status === 'pending' || state.dataDestroyed || !state.callback.sealed) return right([]);
      return right([{ type: 'DeliveryDataDestroyed', data: { deliveryId, ownerId: state.callback.sealed.ownerId, destroyedAt: at } }]);
  }
};

export const delivery: Decider<Command, DeliveryState, DeliveryEvent, DomainError> = { category, codec: DeliveryEvent, initialState, evolve, decide };
