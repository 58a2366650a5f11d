// What one outbound POST of an at-least-once delivery (a callback, a DIDComm message) did, and
// the parts of its answer a retry schedule heeds: both deliveries classify and bound answers alike.
import type { FailureReason } from '../../streams/delivery.js';

/** How much of a response body is read before the rest is discarded. */
export const MAX_RESPONSE_BYTES = 4096;

export type AttemptOutcome =
  | { readonly ok: true; readonly httpStatus: number; readonly durationMs: number }
  | {
      readonly ok: false;
      readonly reason: FailureReason;
      readonly httpStatus: number | null;
      readonly detail: string;
      readonly retryAfterMs: number | undefined;
      readonly durationMs: number;
    };

/** The longest wait a `Retry-After` can impose: one day, the schedule's longest step. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** `Retry-After` as delta-seconds or an HTTP date, in milliseconds from `now`; undefined if absent or malformed. */
export const parseRetryAfter = (value: string | null, now: Date): number | undefined => {
  if (value === null) return undefined;
  const text = value.trim();
  const ms = /^\d{1,10}$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now.getTime();
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
};
