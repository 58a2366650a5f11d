// Stream category `delivery`: one stream per callback delivery, `delivery-<delivery id>`. The id
// is derived from (tenant, eventId, status), so two instances recording the same delivery collide
// on `no_stream` and it is recorded once. The stream holds the callback request as the flow wrote
// it (personal data only sealed), every claim and attempt, and how the delivery ended.
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { CallbackRequest } from './callback.js';
import { eventCodec, type StreamContract } from './event.js';

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

export const FailureReason = t.keyof({ http_status: null, timeout: null, network: null }, 'FailureReason');
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

export const delivery: StreamContract<DeliveryState, DeliveryEvent> = {
  category,
  codec: DeliveryEvent,
  initialState: { status: 'none' },
  evolve: (state, event) => {
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
  },
};
