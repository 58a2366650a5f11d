// When the next attempt of a delivery happens: the configured schedule's delay (its syntax:
// src/config/callbacks.ts), spread a little. The receiver may ask for more time with
// `Retry-After` (read in src/http/outboundAttempt.ts); it never gets less than the schedule gives.
import type { RetrySchedule } from '../config/callbacks.js';

/** Spreads retries of deliveries that failed together (a receiver outage) by up to ±10%. */
export const withJitter = (delayMs: number, random: () => number = Math.random): number =>
  Math.round(delayMs * (0.9 + 0.2 * random()));

/**
 * When the attempt after failed attempt number `attempt` is due, or null when none is left.
 * `limit` is the attempt count at which the delivery gives up (the schedule's length unless an
 * operator's re-send granted one more).
 */
export const nextAttemptAt = (
  schedule: RetrySchedule,
  attempt: number,
  limit: number | null,
  now: Date,
  retryAfterMs: number | undefined,
  random?: () => number,
): Date | null => {
  if (attempt >= (limit ?? schedule.length)) return null;
  const scheduled = withJitter(schedule[Math.min(attempt, schedule.length - 1)] ?? 0, random);
  return new Date(now.getTime() + Math.max(scheduled, retryAfterMs ?? 0));
};
