// What one outbound POST of an at-least-once delivery (a callback, a DIDComm message) did, and
// the parts of its answer a retry schedule heeds: both deliveries classify and bound answers alike.
import type { Either } from 'fp-ts/lib/Either.js';
import type { FailureReason } from '../../streams/delivery.js';
import type { EgressAnswer, EgressFailure } from '../egress/egress.js';

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

/**
 * What one POST through the egress guard (src/egress/) came to: a 2xx delivered; any other status
 * (a redirect is never followed), a refusal (nothing sent), a time-out or a network failure not.
 * `target` names what was posted to in the detail ("the endpoint", "the callback URL").
 */
export const attemptOfEgress = (
  answer: Either<EgressFailure, EgressAnswer>,
  attempt: { readonly target: string; readonly timeoutMs: number; readonly shutdown: AbortSignal; readonly durationMs: number; readonly now: Date },
): AttemptOutcome => {
  const { durationMs } = attempt;
  const failed = (reason: FailureReason, detail: string, httpStatus: number | null = null, retryAfterMs?: number): AttemptOutcome => ({ ok: false, reason, httpStatus, detail, retryAfterMs, durationMs });
  if (answer._tag === 'Left') {
    const { kind, detail } = answer.left;
    switch (kind) {
      case 'timeout':
        return failed('timeout', `no answer within the attempt's ${attempt.timeoutMs} ms`);
      case 'refused':
        return failed('endpoint_refused', `${attempt.target} ${detail}`);
      case 'redirects':
      case 'network':
        return failed('network', attempt.shutdown.aborted ? 'interrupted by shutdown' : `${attempt.target} ${detail}`);
    }
  }
  const httpStatus = answer.right.status;
  if (httpStatus >= 200 && httpStatus <= 299) return { ok: true, httpStatus, durationMs };
  const retryAfter = answer.right.headers['retry-after'];
  return failed('http_status', httpStatus >= 300 && httpStatus <= 399 ? 'redirect not followed' : `HTTP ${httpStatus}`, httpStatus, parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null, attempt.now));
};
